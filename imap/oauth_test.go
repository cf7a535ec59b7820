package imap_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"

	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// oauthServer is imapserver over imapmemserver whose only way in is
// AUTHENTICATE with a bearer token: it offers mechs, takes the tokens in
// valid, refuses others with status (and scope) in the error challenge,
// and echoes the refused token in its NO, as a careless server might.
type oauthServer struct {
	Port  int
	mechs []string

	mu     sync.Mutex
	valid  map[string]bool
	status string
	scope  string
	tried  []string // tokens, in order
	used   []string // mechanisms, in order
}

func newOAuthServer(t *testing.T, mechs []string, valid ...string) *oauthServer {
	t.Helper()
	s := &oauthServer{mechs: mechs, valid: map[string]bool{}, status: "401"}
	for _, v := range valid {
		s.valid[v] = true
	}
	user := imapmemserver.NewUser(testUser, "unused-password")
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &oauthSession{srv: s, user: user}, nil, nil
		},
		Caps:         goimap.CapSet{goimap.CapIMAP4rev1: {}},
		InsecureAuth: true,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close(); <-done; _ = srv.Close() })
	s.Port = ln.Addr().(*net.TCPAddr).Port
	return s
}

func (s *oauthServer) check(user, token string) *sasl.OAuthBearerError {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tried = append(s.tried, token)
	if user == testUser && s.valid[token] {
		return nil
	}
	return &sasl.OAuthBearerError{Status: s.status, Schemes: "bearer", Scope: s.scope}
}

func (s *oauthServer) seen() (tokens, mechs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tried), slices.Clone(s.used)
}

type oauthSession struct {
	*imapmemserver.UserSession
	srv  *oauthServer
	user *imapmemserver.User
}

func (s *oauthSession) Login(string, string) error { return imapserver.ErrAuthFailed }

func (s *oauthSession) Close() error {
	if s.UserSession != nil {
		return s.UserSession.Close()
	}
	return nil
}

func (s *oauthSession) AuthenticateMechanisms() []string { return s.srv.mechs }

func (s *oauthSession) Authenticate(mech string) (sasl.Server, error) {
	if !slices.Contains(s.srv.mechs, mech) {
		return nil, &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: "unsupported mechanism"}
	}
	s.srv.mu.Lock()
	s.srv.used = append(s.srv.used, mech)
	s.srv.mu.Unlock()
	check := func(user, token string) *sasl.OAuthBearerError {
		e := s.srv.check(user, token)
		if e == nil {
			s.UserSession = imapmemserver.NewUserSession(s.user)
		}
		return e
	}
	refused := func(_, token string) error {
		return &goimap.Error{Type: goimap.StatusResponseTypeNo, Code: goimap.ResponseCodeAuthenticationFailed,
			Text: "token " + token + " refused"}
	}
	return mailtest.BearerServer(mech, check, refused), nil
}

// fakeSource hands out tokens in order: Refused drops the first when it is
// the refused one. err, when set, is what Token answers.
type fakeSource struct {
	mu      sync.Mutex
	tokens  []string
	err     error
	calls   int
	refused []string
}

func (f *fakeSource) Token(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return "", f.err
	}
	return f.tokens[0], nil
}

func (f *fakeSource) Refused(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused = append(f.refused, tok)
	if len(f.tokens) > 1 && f.tokens[0] == tok {
		f.tokens = f.tokens[1:]
	}
}

func oauthClient(t *testing.T, port int, src imap.TokenSource, mech string, logs io.Writer) *imap.Client {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	c := imap.New(imap.Options{Host: "127.0.0.1", Port: port, Username: testUser, Token: src, OAuthMechanism: mech,
		Security: imap.SecurityPlain, CommandTimeout: 10 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestOAuthMechanisms: the client picks the mechanism from the server's
// AUTH= capabilities (OAUTHBEARER first), or the one it is told, and logs
// in with the token.
func TestOAuthMechanisms(t *testing.T) {
	for _, tc := range []struct {
		name    string
		offered []string
		want    string
		mech    string
	}{
		{"xoauth2 only", []string{"XOAUTH2"}, "XOAUTH2", ""},
		{"oauthbearer only", []string{"OAUTHBEARER"}, "OAUTHBEARER", ""},
		{"both: the standard", []string{"XOAUTH2", "OAUTHBEARER"}, "OAUTHBEARER", ""},
		{"both: asked for xoauth2", []string{"XOAUTH2", "OAUTHBEARER"}, "XOAUTH2", "xoauth2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newOAuthServer(t, tc.offered, "good-token")
			c := oauthClient(t, srv.Port, &fakeSource{tokens: []string{"good-token"}}, tc.mech, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			d := c.Diagnose(ctx)
			if !d.OK() {
				t.Fatalf("Diagnose() = %v; steps %q", d.Err, d.Steps)
			}
			if d.Mechanism != tc.want {
				t.Errorf("Diagnosis.Mechanism = %q, want %q", d.Mechanism, tc.want)
			}
			if _, used := srv.seen(); !slices.Equal(used, []string{tc.want}) {
				t.Errorf("server saw AUTHENTICATE %q, want [%s]", used, tc.want)
			}
			if err := c.Noop(ctx); err != nil {
				t.Errorf("Noop() through the pool = %v", err)
			}
		})
	}
}

// TestOAuthNoMechanism: a server that offers no OAuth mechanism (or not the
// one asked for) is AUTH_FAILED with a reason, and no token is fetched.
func TestOAuthNoMechanism(t *testing.T) {
	srv := newOAuthServer(t, []string{"XOAUTH2"}, "good-token")
	src := &fakeSource{tokens: []string{"good-token"}}
	c := oauthClient(t, srv.Port, src, "OAUTHBEARER", nil)
	err := c.Noop(t.Context())
	if !errors.Is(err, imap.ErrAuthFailed) || !strings.Contains(err.Error(), "OAUTH_MECHANISM") {
		t.Errorf("Noop() = %v, want ErrAuthFailed naming OAUTH_MECHANISM", err)
	}
	if src.calls != 0 {
		t.Errorf("Token called %d times, want 0", src.calls)
	}
}

// TestOAuthRefusedHint: a refused token is ErrAuthFailed with a hint read
// from the error challenge, and neither the error, the diagnosis steps nor
// the log hold the token, its SASL message or the challenge, though the
// server echoes the token in its NO.
func TestOAuthRefusedHint(t *testing.T) {
	for _, tc := range []struct {
		mech, status, scope, want string
	}{
		{"XOAUTH2", "401", "https://mail.google.com/", "expired or revoked"},
		{"OAUTHBEARER", "invalid_token", "", "expired or revoked"},
		{"XOAUTH2", "400", "", "must be the account the token was issued for"},
		{"OAUTHBEARER", "insufficient_scope", "https://outlook.office.com/IMAP.AccessAsUser.All", "lacks the scope"},
	} {
		t.Run(tc.mech+"/"+tc.status, func(t *testing.T) {
			srv := newOAuthServer(t, []string{tc.mech})
			srv.status, srv.scope = tc.status, tc.scope
			const bad = "ya29.refused-access-token-0123456789"
			var logs bytes.Buffer
			c := oauthClient(t, srv.Port, &fakeSource{tokens: []string{bad}}, "", &logs)
			d := c.Diagnose(t.Context())
			if !errors.Is(d.Err, imap.ErrAuthFailed) {
				t.Fatalf("Diagnose().Err = %v, want ErrAuthFailed", d.Err)
			}
			if !strings.Contains(d.Err.Error(), tc.want) {
				t.Errorf("Diagnose().Err = %q, want the hint %q", d.Err, tc.want)
			}
			if tried, _ := srv.seen(); len(tried) != 1 {
				t.Errorf("server saw %d tokens, want 1 (the source had no other)", len(tried))
			}
			text := d.Err.Error() + "\n" + strings.Join(d.Steps, "\n") + "\n" + logs.String()
			for _, secret := range secretForms(bad, tc.mech) {
				if strings.Contains(text, secret) {
					t.Errorf("error, steps or log hold a form of the token %q:\n%s", secret, text)
				}
			}
		})
	}
}

// secretForms are the token and the base64 forms that could leak.
func secretForms(tok, mech string) []string {
	enc := base64.StdEncoding.EncodeToString
	ir := "user=" + testUser + "\x01auth=Bearer " + tok + "\x01\x01"
	if mech == "OAUTHBEARER" {
		ir = "auth=Bearer " + tok
	}
	return []string{tok, enc([]byte(tok)), enc([]byte(ir)), tok[5:20]}
}

// TestOAuthRefusedTokenReplaced: a cached token that the server no longer
// takes (it expired early) is reported to the source, and the source's
// next token logs in on the same connection: the call does not fail.
func TestOAuthRefusedTokenReplaced(t *testing.T) {
	srv := newOAuthServer(t, []string{"XOAUTH2"}, "fresh-token")
	src := &fakeSource{tokens: []string{"stale-token", "fresh-token"}}
	c := oauthClient(t, srv.Port, src, "", nil)
	if err := c.Noop(t.Context()); err != nil {
		t.Fatalf("Noop() = %v, want the fresh token to log in", err)
	}
	tried, _ := srv.seen()
	if !slices.Equal(tried, []string{"stale-token", "fresh-token"}) {
		t.Errorf("server saw tokens %q, want [stale-token fresh-token]", tried)
	}
	if !slices.Equal(src.refused, []string{"stale-token"}) {
		t.Errorf("Refused(%q), want [stale-token]", src.refused)
	}
}

// temporary is a token source failure that says it may pass.
type temporary struct{ error }

func (temporary) Temporary() bool { return true }

// TestOAuthSourceFailure: a token source that cannot give a token fails
// the login before AUTHENTICATE: a temporary failure is ErrConnection
// (retryable), any other ErrAuthFailed, with the source's text.
func TestOAuthSourceFailure(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want error
	}{
		{temporary{errors.New("token endpoint unreachable")}, imap.ErrConnection},
		{errors.New("the refresh token was revoked: run email-mcp login"), imap.ErrAuthFailed},
	} {
		srv := newOAuthServer(t, []string{"XOAUTH2"}, "good-token")
		c := oauthClient(t, srv.Port, &fakeSource{err: tc.err}, "", nil)
		err := c.Noop(t.Context())
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.err.Error()) {
			t.Errorf("Noop() with source error %q = %v, want %v with the source's text", tc.err, err, tc.want)
		}
		if tried, _ := srv.seen(); len(tried) != 0 {
			t.Errorf("server saw tokens %q, want none", tried)
		}
	}
}
