package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/oauth"
)

func newRefresh(as *mailtest.AuthServer, rt string) *oauth.Refresh {
	return oauth.NewRefresh(oauth.RefreshOptions{ClientID: as.ClientID, ClientSecret: as.Secret, TokenURL: as.TokenURL,
		RefreshToken: rt, Backoff: time.Millisecond})
}

// TestRefreshOnceForAll: concurrent callers (the pool's connections) share
// one refresh and one token while it is valid.
func TestRefreshOnceForAll(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	src := newRefresh(as, as.IssueRefresh())
	var wg sync.WaitGroup
	toks := make([]string, 8)
	for i := range toks {
		wg.Go(func() {
			tok, err := src.Token(t.Context())
			if err != nil {
				t.Errorf("Token() = %v", err)
			}
			toks[i] = tok
		})
	}
	wg.Wait()
	for _, tok := range toks {
		if tok != toks[0] || !as.Valid(tok) {
			t.Fatalf("tokens %q: want one valid token for all", toks)
		}
	}
	if n, _ := as.Counts(); n != 1 {
		t.Errorf("%d refreshes for 8 callers, want 1", n)
	}
}

// TestRefreshBeforeExpiry: a token that expires within EarlyExpiry (a
// minute) is not handed out again: the next Token refreshes first, so no
// login meets an expired token.
func TestRefreshBeforeExpiry(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	as.TTL = 30 * time.Second // less than the early expiry
	src := newRefresh(as, as.IssueRefresh())
	first, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	second, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Errorf("Token() gave the same token twice although it expires within a minute")
	}
	if n, _ := as.Counts(); n != 2 {
		t.Errorf("%d refreshes, want 2", n)
	}
}

// TestRefreshRetriesTemporary: 503s from the token endpoint are retried
// with backoff; the caller sees only the token.
func TestRefreshRetriesTemporary(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	as.FailNext = 2
	src := newRefresh(as, as.IssueRefresh())
	tok, err := src.Token(t.Context())
	if err != nil || !as.Valid(tok) {
		t.Fatalf("Token() = %v, want a valid token after two 503s", err)
	}
	if _, reqs := as.Counts(); reqs != 3 {
		t.Errorf("%d token requests, want 3", reqs)
	}
	as.FailNext = 10
	src = newRefresh(as, as.IssueRefresh())
	_, err = src.Token(t.Context())
	var te interface{ Temporary() bool }
	if !errors.As(err, &te) || !te.Temporary() {
		t.Errorf("Token() with the endpoint down = %v, want a temporary error", err)
	}
}

// TestRefreshRevoked: a dead refresh token (invalid_grant) is a
// ConfigError that says to run email-mcp login, at once (no retries), and
// holds neither the refresh token nor the client secret.
func TestRefreshRevoked(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	rt := as.IssueRefresh()
	as.Revoke(rt)
	_, err := newRefresh(as, rt).Token(t.Context())
	var ce *oauth.ConfigError
	if !errors.As(err, &ce) || ce.Var != "OAUTH_REFRESH_TOKEN" || !strings.Contains(err.Error(), "email-mcp login") ||
		!strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("Token() = %v, want a ConfigError for OAUTH_REFRESH_TOKEN that says to run email-mcp login", err)
	}
	if _, reqs := as.Counts(); reqs != 1 {
		t.Errorf("%d token requests, want 1 (invalid_grant is not retried)", reqs)
	}
	for _, s := range []string{rt, as.Secret} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error %q holds a secret", err)
		}
	}
}

// TestRefusedRefreshes: a token the mail server refused is dropped; the
// next Token is a new one. Rotated refresh tokens are kept and reported.
func TestRefusedRefreshes(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	as.Rotate = true
	var rotated []string
	src := oauth.NewRefresh(oauth.RefreshOptions{ClientID: as.ClientID, ClientSecret: as.Secret, TokenURL: as.TokenURL,
		RefreshToken: as.IssueRefresh(), OnRotate: func(rt string) { rotated = append(rotated, rt) }})
	t1, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	src.Refused(t1)
	t2, err := src.Token(t.Context())
	if err != nil || t2 == t1 {
		t.Fatalf("Token() after Refused = %q, %v; want a new token", t2, err)
	}
	if len(rotated) != 2 {
		t.Errorf("OnRotate called %d times, want 2 (the server rotates at every refresh)", len(rotated))
	}
}

// TestTokenCancelled: Token returns when its ctx ends, even while the
// endpoint is slow.
func TestTokenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	as := mailtest.NewAuthServer(t)
	if _, err := newRefresh(as, as.IssueRefresh()).Token(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Token(cancelled) = %v, want context.Canceled", err)
	}
}

// TestCommandAndFile: the external sources read a token as a line or as
// JSON; a failed command is a ConfigError without its output.
func TestCommandAndFile(t *testing.T) {
	c := &oauth.Command{Argv: []string{"sh", "-c", `echo '{"access_token":"cmd-token","expires_in":3600}'`}}
	if tok, err := c.Token(t.Context()); err != nil || tok != "cmd-token" {
		t.Errorf("Command JSON: Token() = %q, %v", tok, err)
	}
	c = &oauth.Command{Argv: []string{"sh", "-c", "echo leaked-secret >&2; echo leaked-secret; exit 3"}}
	_, err := c.Token(t.Context())
	var ce *oauth.ConfigError
	if !errors.As(err, &ce) || ce.Var != "OAUTH_TOKEN_COMMAND" || !strings.Contains(err.Error(), "exit status 3") ||
		strings.Contains(err.Error(), "leaked-secret") {
		t.Errorf("failing command: Token() = %v, want a ConfigError with the exit status and no output", err)
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("file-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := (&oauth.File{Path: path}).Token(t.Context()); err != nil || tok != "file-token" {
		t.Errorf("File: Token() = %q, %v", tok, err)
	}
	if _, err := (&oauth.File{Path: path + ".missing"}).Token(t.Context()); !errors.As(err, &ce) {
		t.Errorf("missing file: Token() = %v, want a ConfigError", err)
	}
}

// TestStore: Save writes 0600; Load refuses a file others may read and a
// missing one with the hint to run email-mcp login.
func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "oauth-token.json")
	want := oauth.Stored{TokenURL: "https://auth.example/token", ClientID: "cid", RefreshToken: "rt-secret"}
	if err := oauth.Save(path, want); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("stored file mode = %v, %v; want 0600", info.Mode(), err)
	}
	got, err := oauth.Load(path)
	if err != nil || got.RefreshToken != want.RefreshToken || got.ClientID != "cid" {
		t.Errorf("Load() = %+v, %v", got, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.Load(path); err == nil || !strings.Contains(err.Error(), "read by others") {
		t.Errorf("Load(0644) = %v, want a refusal", err)
	}
	if _, err := oauth.Load(path + ".none"); err == nil || !strings.Contains(err.Error(), "email-mcp login") {
		t.Errorf("Load(missing) = %v, want the hint to run email-mcp login", err)
	}
}

// TestDeviceLogin runs the device grant end to end against the test
// authorization server: the prompt shows a code, the user approves, and
// the stored refresh token then refreshes.
func TestDeviceLogin(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	var prompt oauth.DevicePrompt
	st, err := oauth.DeviceLogin(t.Context(), oauth.DeviceOptions{ClientID: as.ClientID, DeviceAuthURL: as.DeviceURL,
		TokenURL: as.TokenURL, Scopes: []string{"mail"}}, func(p oauth.DevicePrompt) {
		prompt = p
		as.Approve(p.Code)
	})
	if err != nil {
		t.Fatalf("DeviceLogin() = %v", err)
	}
	if prompt.Code == "" || prompt.URL == "" {
		t.Errorf("prompt = %+v, want a URL and a code", prompt)
	}
	tok, err := newRefresh(as, st.RefreshToken).Token(t.Context())
	if err != nil || !as.Valid(tok) {
		t.Errorf("Token() from the device grant's refresh token = %v", err)
	}
}

// TestDeviceLoginRefusals: a scope the device endpoint refuses and an
// unknown client are ConfigErrors that say what to change, before any
// prompt.
func TestDeviceLoginRefusals(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	for _, tc := range []struct {
		client, scope, want string
	}{
		{as.ClientID, "forbidden", "OAUTH_SCOPES"},
		{"someone-else", "mail", "OAUTH_CLIENT_ID"},
	} {
		prompted := false
		_, err := oauth.DeviceLogin(t.Context(), oauth.DeviceOptions{ClientID: tc.client, DeviceAuthURL: as.DeviceURL,
			TokenURL: as.TokenURL, Scopes: []string{tc.scope}}, func(oauth.DevicePrompt) { prompted = true })
		var ce *oauth.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || prompted {
			t.Errorf("DeviceLogin(client %q, scope %q) = %v (prompted %v), want a ConfigError naming %s", tc.client, tc.scope, err, prompted, tc.want)
		}
	}
}

// TestBrowserLogin runs the authorization code grant with PKCE and a
// loopback redirect end to end: the "browser" follows the printed URL to
// the authorization server, which redirects back with a code; the server
// checks the verifier against the challenge.
func TestBrowserLogin(t *testing.T) {
	as := mailtest.NewAuthServer(t)
	page := make(chan string, 1) // what the browser shows at the end
	st, err := oauth.BrowserLogin(t.Context(), oauth.BrowserOptions{ClientID: as.ClientID, ClientSecret: as.Secret,
		AuthURL: as.Issuer + "/authorize", TokenURL: as.TokenURL, Scopes: []string{"mail"}}, func(u string) {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				page <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			page <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		}()
	})
	if err != nil {
		t.Fatalf("BrowserLogin() = %v", err)
	}
	// The browser gets the page even though the login ends (and closes its
	// server) as soon as the code arrives: it got EOF before.
	if got := <-page; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "signed in") {
		t.Errorf("the browser was shown %q, want 200 and the signed-in page", got)
	}
	tok, err := newRefresh(as, st.RefreshToken).Token(t.Context())
	if err != nil || !as.Valid(tok) {
		t.Errorf("Token() from the browser grant's refresh token = %v", err)
	}
}
