package oauth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// BrowserOptions configure BrowserLogin.
type BrowserOptions struct {
	ClientID     string
	ClientSecret string // Google's desktop clients have one; it is not secret there
	AuthURL      string
	TokenURL     string
	Scopes       []string
	Issuer       string       // kept in Stored, for people
	HTTPClient   *http.Client // nil: one with DefaultHTTPTimeout
}

// BrowserLogin runs the authorization code grant with PKCE (RFC 7636) and
// a loopback redirect (RFC 8252), the flow Google documents for desktop
// apps: it listens on 127.0.0.1, hands show the URL to open in a browser on
// this machine, takes the code the browser brings back (state checked),
// and trades it for tokens. The result holds the refresh token.
func BrowserLogin(ctx context.Context, o BrowserOptions, show func(url string)) (Stored, error) {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Stored{}, fmt.Errorf("listen for the browser's redirect: %w", err)
	}
	conf := &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes,
		RedirectURL: "http://" + ln.Addr().String() + "/",
		Endpoint:    oauth2.Endpoint{AuthURL: o.AuthURL, TokenURL: o.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	state, verifier := randomState(), oauth2.GenerateVerifier()
	got := make(chan callback, 1)
	srv := &http.Server{Handler: redirectHandler(state, got), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer shutdown(srv)
	show(conf.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("prompt", "consent")))
	var cb callback
	select {
	case cb = <-got:
	case <-ctx.Done():
		return Stored{}, &ConfigError{Var: "email-mcp login", Reason: "no sign-in came back from the browser in time"}
	}
	if cb.err != "" {
		return Stored{}, &ConfigError{Var: "email-mcp login", Reason: "the sign-in was refused in the browser (" + clip(cb.err) + ")"}
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	tok, err := conf.Exchange(ctx, cb.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Stored{}, classify("trade the code for a token", err)
	}
	if tok.RefreshToken == "" {
		return Stored{}, &ConfigError{Var: "OAUTH_SCOPES", Reason: "the authorization server issued no refresh token",
			Hint: "add offline_access to OAUTH_SCOPES (Microsoft), or remove the app's earlier grant and sign in again (Google)"}
	}
	return Stored{Issuer: o.Issuer, TokenURL: o.TokenURL, ClientID: o.ClientID, Scopes: o.Scopes,
		RefreshToken: tok.RefreshToken, SavedAt: time.Now().UTC()}, nil
}

// callback is what the browser brought back: a code, or an error code.
type callback struct{ code, err string }

// redirectHandler takes the first redirect with the right state.
func redirectHandler(state string, got chan<- callback) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		cb := callback{code: q.Get("code"), err: q.Get("error")}
		if cb.code == "" && cb.err == "" {
			cb.err = "no code"
		}
		// The page first, then the code: once the code is handed over the
		// login may end and close this server, and the browser showed a
		// broken connection instead of this page (TestBrowserLogin saw EOF).
		fmt.Fprintln(w, "email-mcp: signed in; you may close this window.")
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case got <- cb:
		default:
		}
	})
}

// shutdown stops the redirect server, letting a response in flight finish
// (a second at most).
func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		_ = srv.Close()
	}
}

func randomState() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("crypto/rand failed"))
	}
	return hex.EncodeToString(b)
}
