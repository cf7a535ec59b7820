package main

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/smtp"
)

const oauthUser = "agent@example.com"

// oauthAccount is an IMAP server (XOAUTH2) and an SMTP server
// (OAUTHBEARER) on loopback that take the access tokens of an in-process
// authorization server, and the variables that point email-mcp at them
// with a refresh token.
type oauthAccount struct {
	as      *mailtest.AuthServer
	refresh string
	env     map[string]string
	smtp    *smtpTokens
}

func newOAuthAccount(t *testing.T) *oauthAccount {
	t.Helper()
	as := mailtest.NewAuthServer(t)
	check := func(_, tok string) *sasl.OAuthBearerError {
		if as.Valid(tok) {
			return nil
		}
		return &sasl.OAuthBearerError{Status: "invalid_token", Schemes: "bearer", Scope: "mail"}
	}
	imapPort := mailtest.NewOAuthIMAP(t, oauthUser, []string{"XOAUTH2"}, check)
	st := &smtpTokens{check: check}
	a := &oauthAccount{as: as, refresh: as.IssueRefresh(), smtp: st}
	a.env = map[string]string{
		"IMAP_HOST": "127.0.0.1", "IMAP_PORT": strconv.Itoa(imapPort), "IMAP_SSL": "false", "IMAP_STARTTLS": "false",
		"IMAP_USER": oauthUser, "SMTP_HOST": "127.0.0.1", "SMTP_PORT": strconv.Itoa(startTokenSMTP(t, st)), "SMTP_STARTTLS": "false",
		"EMAIL_AUTH": "oauth2", "OAUTH_CLIENT_ID": as.ClientID, "OAUTH_CLIENT_SECRET": as.Secret, "OAUTH_TOKEN_URL": as.TokenURL,
		"OAUTH_REFRESH_TOKEN": a.refresh, "MCP_API_KEY": canaryAPIKey, "LOG_LEVEL": "debug",
	}
	return a
}

// setenv puts a.env (and kv) into the process environment for run.
func (a *oauthAccount) setenv(t *testing.T, kv ...string) string {
	t.Helper()
	for _, k := range config.Names() {
		t.Setenv(k, "")
	}
	for k, v := range a.env {
		t.Setenv(k, v)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
	env := filepath.Join(t.TempDir(), "empty.env")
	if err := os.WriteFile(env, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

// assertNoSecrets: no token, refresh token or client secret in text.
func (a *oauthAccount) assertNoSecrets(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range append(a.as.Secrets(), a.refresh) {
		if strings.Contains(text, s) {
			t.Errorf("%s holds a secret of the authorization server (%.12s...):\n%s", what, s, text)
		}
	}
}

// smtpTokens is a go-smtp backend that takes OAUTHBEARER tokens.
type smtpTokens struct {
	check mailtest.BearerCheck
	mu    sync.Mutex
	mails int
}

func (b *smtpTokens) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &tokenSMTP{b: b}, nil }

type tokenSMTP struct {
	b      *smtpTokens
	authed bool
}

func (s *tokenSMTP) AuthMechanisms() []string { return []string{sasl.OAuthBearer} }
func (s *tokenSMTP) Auth(mech string) (sasl.Server, error) {
	return mailtest.BearerServer(mech, func(u, tok string) *sasl.OAuthBearerError {
		e := s.b.check(u, tok)
		s.authed = e == nil
		return e
	}, func(string, string) error { return gosmtp.ErrAuthFailed }), nil
}
func (s *tokenSMTP) Mail(string, *gosmtp.MailOptions) error {
	if !s.authed {
		return gosmtp.ErrAuthRequired
	}
	return nil
}
func (s *tokenSMTP) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *tokenSMTP) Data(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	s.b.mu.Lock()
	s.b.mails++
	s.b.mu.Unlock()
	return err
}
func (s *tokenSMTP) Reset()        {}
func (s *tokenSMTP) Logout() error { return nil }

func startTokenSMTP(t *testing.T, b *smtpTokens) int {
	t.Helper()
	s := gosmtp.NewServer(b)
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close(); _ = ln.Close(); <-done })
	return ln.Addr().(*net.TCPAddr).Port
}

// TestCheckOAuth: check signs in to IMAP (XOAUTH2) and SMTP (OAUTHBEARER)
// with access tokens refreshed from OAUTH_REFRESH_TOKEN, says how, and
// neither its output nor its debug log holds a token, the refresh token
// or the client secret. Revoked, the refresh token fails both parts as
// AUTH_FAILED with the hint to run email-mcp login.
func TestCheckOAuth(t *testing.T) {
	a := newOAuthAccount(t)
	env := a.setenv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, logs syncBuffer
	if code := run(ctx, []string{"check", "--env-file", env}, nil, &out, &logs); code != exitOK {
		t.Fatalf("check exit = %d, want 0; stdout:\n%s\nstderr:\n%s", code, out.String(), logs.String())
	}
	for _, want := range []string{"sign-in: OAuth 2.0", "signed in with SASL XOAUTH2", "signed in with SASL OAUTHBEARER", "provider preset: custom"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}
	a.assertNoSecrets(t, "check stdout", out.String())
	a.assertNoSecrets(t, "check log", logs.String())
	if n, _ := a.as.Counts(); n != 1 {
		t.Errorf("%d refreshes for one check, want 1 (IMAP and SMTP share the token)", n)
	}

	a.as.Revoke(a.refresh)
	out, logs = syncBuffer{}, syncBuffer{}
	if code := run(ctx, []string{"check", "--env-file", env}, nil, &out, &logs); code != exitFailure {
		t.Errorf("check with a revoked refresh token: exit = %d, want %d", code, exitFailure)
	}
	if got := strings.Count(out.String(), "FAILED AUTH_FAILED"); got != 2 || !strings.Contains(out.String(), "email-mcp login") ||
		!strings.Contains(out.String(), "invalid_grant") {
		t.Errorf("check with a revoked refresh token: want both parts AUTH_FAILED naming invalid_grant and email-mcp login:\n%s", out.String())
	}
	a.assertNoSecrets(t, "check stdout (revoked)", out.String())
	if strings.Contains(out.String(), "signed in with") {
		t.Errorf("check with a revoked refresh token says it signed in:\n%s", out.String())
	}
	a.assertNoSecrets(t, "check log (revoked)", logs.String())
}

// TestExpiredTokenNoFailedCall: the IMAP and SMTP adapters as wired share
// one token source; when the server stops taking the cached access token
// (it expired), the next login refreshes and succeeds: no call fails.
func TestExpiredTokenNoFailedCall(t *testing.T) {
	a := newOAuthAccount(t)
	cfg, err := config.Load(config.LoadOptions{Environ: a.env})
	if err != nil {
		t.Fatal(err)
	}
	io, so, err := accountAdapters(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := imap.New(io)
	defer first.Close()
	if err := first.Noop(ctx); err != nil {
		t.Fatalf("Noop() = %v", err)
	}
	a.as.ExpireAll()
	second := imap.New(io) // a new connection logs in again
	defer second.Close()
	if err := second.Noop(ctx); err != nil {
		t.Errorf("Noop() after the token expired = %v, want a refresh and success", err)
	}
	if err := smtp.New(so).Check(ctx); err != nil {
		t.Errorf("SMTP Check() after the token expired = %v", err)
	}
	if n, _ := a.as.Counts(); n != 2 {
		t.Errorf("%d refreshes, want 2 (one at start, one after the expiry)", n)
	}
}

// promptApprover approves the device code that login prints.
type promptApprover struct {
	as      *mailtest.AuthServer
	mu      sync.Mutex
	buf     strings.Builder
	browsed bool
}

var (
	codeRE = regexp.MustCompile(`enter the code (\S+)`)
	urlRE  = regexp.MustCompile(`(http://127\.0\.0\.1:\d+/authorize\?\S+)`)
)

func (p *promptApprover) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	if m := codeRE.FindStringSubmatch(p.buf.String()); m != nil {
		p.as.Approve(m[1])
	}
	if m := urlRE.FindStringSubmatch(p.buf.String()); m != nil && !p.browsed {
		p.browsed = true
		go func() { // the browser: follow the URL, and its redirect back to login
			if resp, err := http.Get(m[1]); err == nil {
				resp.Body.Close()
			}
		}()
	}
	return len(b), nil
}

func (p *promptApprover) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// TestLoginDeviceGrant: `email-mcp login` runs the device grant, and with
// --browser the authorization code grant, end to end (by endpoint
// variables and by --issuer), prints what to open, stores the refresh token
// 0600 and never prints it; check then signs in with the stored token.
func TestLoginDeviceGrant(t *testing.T) {
	for _, mode := range []string{"device", "device by issuer", "browser", "browser by issuer"} {
		byIssuer := strings.HasSuffix(mode, "by issuer")
		t.Run(mode, func(t *testing.T) {
			a := newOAuthAccount(t)
			dataDir := t.TempDir()
			env := a.setenv(t, "OAUTH_REFRESH_TOKEN", "", "EMAIL_DATA_DIR", dataDir, "OAUTH_DEVICE_AUTH_URL", a.as.DeviceURL)
			args := []string{"login", "--env-file", env}
			if strings.HasPrefix(mode, "browser") {
				t.Setenv("OAUTH_AUTH_URL", a.as.Issuer+"/authorize")
				args = append(args, "--browser")
			}
			if byIssuer {
				t.Setenv("OAUTH_DEVICE_AUTH_URL", "")
				t.Setenv("OAUTH_TOKEN_URL", "")
				t.Setenv("OAUTH_AUTH_URL", "")
				args = append(args, "--issuer", a.as.Issuer)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			out := &promptApprover{as: a.as}
			var errb syncBuffer
			if code := run(ctx, args, nil, out, &errb); code != exitOK {
				t.Fatalf("login exit = %d; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			path := filepath.Join(dataDir, config.DefaultTokenStore)
			info, err := os.Stat(path)
			if err != nil || info.Mode().Perm() != 0o600 {
				t.Fatalf("stored token: %v, mode %v; want 0600", err, info.Mode())
			}
			a.assertNoSecrets(t, "login stdout", out.String())
			a.assertNoSecrets(t, "login stderr", errb.String())
			var cout, clog syncBuffer
			if code := run(ctx, []string{"check", "--env-file", env}, nil, &cout, &clog); code != exitOK {
				t.Errorf("check with the stored token: exit = %d\n%s", code, cout.String())
			}
			if !strings.Contains(cout.String(), "stored by `email-mcp login`") {
				t.Errorf("check output does not say it used the stored token:\n%s", cout.String())
			}
			a.assertNoSecrets(t, "check log", clog.String())
		})
	}
}
