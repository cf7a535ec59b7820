package oauth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Defaults of RefreshOptions.
const (
	DefaultEarlyExpiry = time.Minute
	DefaultAttempts    = 4
	DefaultBackoff     = 500 * time.Millisecond
	DefaultHTTPTimeout = 30 * time.Second
)

// RefreshOptions configure a Refresh source.
type RefreshOptions struct {
	ClientID     string
	ClientSecret string // "" for a public client
	TokenURL     string
	Scopes       []string // sent with the refresh; nil keeps the granted ones
	RefreshToken string
	// OnRotate is called with a new refresh token when the server sends one
	// (Microsoft rotates them), to store it; nil keeps it in memory only.
	OnRotate func(refreshToken string)
	// HTTPClient makes the requests; nil: one with DefaultHTTPTimeout.
	HTTPClient *http.Client
	// EarlyExpiry: a token is refreshed this long before it expires.
	EarlyExpiry time.Duration
	// Attempts and Backoff: a temporary failure is retried up to Attempts
	// times in all, waiting Backoff, then twice that, and so on.
	Attempts int
	Backoff  time.Duration
}

// Refresh is a token source from a refresh token. It is safe for
// concurrent use: concurrent callers share one refresh.
type Refresh struct {
	opts RefreshOptions
	conf *oauth2.Config
	ctx  context.Context // carries the HTTP client for x/oauth2

	mu      sync.Mutex
	refresh string
	reuse   oauth2.TokenSource // ReuseTokenSourceWithExpiry over refresher
	last    string             // the access token handed out last
}

// NewRefresh returns a Refresh source. It does no I/O.
func NewRefresh(opts RefreshOptions) *Refresh {
	if opts.EarlyExpiry <= 0 {
		opts.EarlyExpiry = DefaultEarlyExpiry
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	// The client credentials go in the form (as Google and Microsoft take
	// them): x/oauth2's auto-detection sends a refused request again in the
	// other style, which doubles every invalid_grant.
	r := &Refresh{
		opts: opts, refresh: opts.RefreshToken,
		conf: &oauth2.Config{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, Scopes: opts.Scopes,
			Endpoint: oauth2.Endpoint{TokenURL: opts.TokenURL, AuthStyle: oauth2.AuthStyleInParams}},
		ctx: context.WithValue(context.Background(), oauth2.HTTPClient, opts.HTTPClient),
	}
	r.reuse = oauth2.ReuseTokenSourceWithExpiry(nil, refresher{r}, opts.EarlyExpiry)
	return r
}

// Token returns an access token valid for at least EarlyExpiry, refreshing
// it when needed. It returns when ctx ends even while a refresh runs on.
func (r *Refresh) Token(ctx context.Context) (string, error) {
	r.mu.Lock()
	reuse := r.reuse
	r.mu.Unlock()
	type result struct {
		tok *oauth2.Token
		err error
	}
	done := make(chan result, 1)
	go func() {
		t, err := reuse.Token()
		done <- result{t, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return "", res.err
		}
		r.mu.Lock()
		r.last = res.tok.AccessToken
		r.mu.Unlock()
		return res.tok.AccessToken, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Refused drops tok from the cache: the next Token refreshes.
func (r *Refresh) Refused(tok string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tok == r.last {
		r.reuse = oauth2.ReuseTokenSourceWithExpiry(nil, refresher{r}, r.opts.EarlyExpiry)
		r.last = ""
	}
}

// refresher is one refresh at the token endpoint, with retries.
type refresher struct{ r *Refresh }

// Token implements oauth2.TokenSource.
func (f refresher) Token() (*oauth2.Token, error) {
	r := f.r
	wait := r.opts.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		var tok *oauth2.Token
		tok, err = r.once()
		if err == nil {
			return tok, nil
		}
		var t *TemporaryError
		if !errors.As(err, &t) || attempt >= r.opts.Attempts {
			return nil, err
		}
		time.Sleep(wait)
		wait *= 2
	}
}

// once asks the token endpoint for a new access token.
func (r *Refresh) once() (*oauth2.Token, error) {
	r.mu.Lock()
	rt := r.refresh
	r.mu.Unlock()
	tok, err := r.conf.TokenSource(r.ctx, &oauth2.Token{RefreshToken: rt}).Token()
	if err != nil {
		return nil, classify("refresh the OAuth access token", err)
	}
	if tok.AccessToken == "" {
		return nil, &TemporaryError{Op: "refresh the OAuth access token", Err: ErrNoToken}
	}
	if tok.RefreshToken != "" && tok.RefreshToken != rt {
		r.mu.Lock()
		r.refresh = tok.RefreshToken
		r.mu.Unlock()
		if r.opts.OnRotate != nil {
			r.opts.OnRotate(tok.RefreshToken)
		}
	}
	return tok, nil
}
