//go:build dovecotoauth

// The Dovecot OAuth tier (scripts/dovecot/oauth-tier.sh builds with
// -tags dovecotoauth): a real Dovecot whose oauth2 passdb checks tokens at
// the loopback authorization server of internal/mailtest/authserverd.

package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/oauth"
)

// admin posts to the authorization server's admin listener.
func admin(t *testing.T, path string, q url.Values) string {
	t.Helper()
	resp, err := http.Post(os.Getenv("DOVECOT_OAUTH_ADMIN_URL")+path+"?"+q.Encode(), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// dovecotOAuthEnv is a configuration for Dovecot's STARTTLS port with a
// refresh token for DOVECOT_USER and mechanism mech.
func dovecotOAuthEnv(t *testing.T, rt, mech string) map[string]string {
	t.Helper()
	host, port, err := net.SplitHostPort(os.Getenv("DOVECOT_IMAP_ADDR"))
	if err != nil {
		t.Fatalf("DOVECOT_IMAP_ADDR: %v (run scripts/dovecot/oauth-tier.sh)", err)
	}
	return map[string]string{
		"IMAP_HOST": host, "IMAP_PORT": port, "IMAP_SSL": "false", "IMAP_STARTTLS": "true",
		"TLS_CA_FILE": os.Getenv("DOVECOT_CA_FILE"), "IMAP_USER": os.Getenv("DOVECOT_USER"),
		"EMAIL_AUTH": "oauth2", "OAUTH_MECHANISM": mech, "OAUTH_REFRESH_TOKEN": rt,
		"OAUTH_CLIENT_ID": os.Getenv("DOVECOT_OAUTH_CLIENT_ID"), "OAUTH_CLIENT_SECRET": os.Getenv("DOVECOT_OAUTH_CLIENT_SECRET"),
		"OAUTH_TOKEN_URL": os.Getenv("DOVECOT_OAUTH_TOKEN_URL"), "MCP_READ_ONLY": "true",
		"MCP_API_KEY": canaryAPIKey, "LOG_LEVEL": "debug",
	}
}

func setenvAll(t *testing.T, env map[string]string) string {
	t.Helper()
	for _, k := range config.Names() {
		t.Setenv(k, "")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	f := t.TempDir() + "/empty.env"
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDovecotOAuthCheck: check signs in to Dovecot with XOAUTH2 and with
// OAUTHBEARER; with the refresh token revoked it fails with the hint. The
// output goes to the test log, which oauth-tier.sh greps for tokens.
func TestDovecotOAuthCheck(t *testing.T) {
	user := os.Getenv("DOVECOT_USER")
	for _, mech := range []string{"xoauth2", "oauthbearer"} {
		t.Run(mech, func(t *testing.T) {
			rt := admin(t, "/refresh", url.Values{"user": {user}})
			env := setenvAll(t, dovecotOAuthEnv(t, rt, mech))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var out, logs syncBuffer
			code := run(ctx, []string{"check", "--env-file", env}, nil, &out, &logs)
			t.Logf("check:\n%s\nlog:\n%s", out.String(), logs.String())
			if code != exitOK || !strings.Contains(out.String(), "signed in with SASL "+strings.ToUpper(mech)) {
				t.Fatalf("check exit = %d, want 0 and a sign-in with %s", code, mech)
			}
			admin(t, "/revoke", url.Values{"token": {rt}})
			out, logs = syncBuffer{}, syncBuffer{}
			code = run(ctx, []string{"check", "--env-file", env}, nil, &out, &logs)
			t.Logf("check (revoked):\n%s\nlog:\n%s", out.String(), logs.String())
			if code != exitFailure || !strings.Contains(out.String(), "invalid_grant") || !strings.Contains(out.String(), "email-mcp login") {
				t.Errorf("check with a revoked refresh token: exit = %d, want 1 with invalid_grant and email-mcp login", code)
			}
		})
	}
}

// TestDovecotOAuthExpiry: after every access token expired at the
// authorization server, a new login refreshes before Dovecot sees a dead
// token, or right after its refusal: the call succeeds.
func TestDovecotOAuthExpiry(t *testing.T) {
	rt := admin(t, "/refresh", url.Values{"user": {os.Getenv("DOVECOT_USER")}})
	cfg, err := config.Load(config.LoadOptions{Environ: dovecotOAuthEnv(t, rt, "auto")})
	if err != nil {
		t.Fatal(err)
	}
	io, _, err := accountAdapters(cfg)
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
	admin(t, "/expire", nil)
	second := imap.New(io)
	defer second.Close()
	if err := second.Noop(ctx); err != nil {
		t.Errorf("Noop() on a new connection after the token expired = %v, want success", err)
	}
}

// TestDovecotOAuthDeviceGrant: the device grant against the same
// authorization server gives a refresh token that signs in to Dovecot.
func TestDovecotOAuthDeviceGrant(t *testing.T) {
	user := os.Getenv("DOVECOT_USER")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := oauth.DeviceLogin(ctx, oauth.DeviceOptions{ClientID: os.Getenv("DOVECOT_OAUTH_CLIENT_ID"),
		DeviceAuthURL: os.Getenv("DOVECOT_OAUTH_DEVICE_URL"), TokenURL: os.Getenv("DOVECOT_OAUTH_TOKEN_URL"), Scopes: []string{"mail"}},
		func(p oauth.DevicePrompt) { admin(t, "/approve", url.Values{"code": {p.Code}, "user": {user}}) })
	if err != nil {
		t.Fatalf("DeviceLogin() = %v", err)
	}
	cfg, err := config.Load(config.LoadOptions{Environ: dovecotOAuthEnv(t, st.RefreshToken, "auto")})
	if err != nil {
		t.Fatal(err)
	}
	io, _, err := accountAdapters(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := imap.New(io)
	defer c.Close()
	if err := c.Noop(ctx); err != nil {
		t.Errorf("Noop() with the device grant's token = %v", err)
	}
}

// TestDovecotOAuthRefusedToken: a token Dovecot refuses (from
// OAUTH_TOKEN_COMMAND) fails check as AUTH_FAILED with a hint, and the
// token appears in neither the output nor the log.
func TestDovecotOAuthRefusedToken(t *testing.T) {
	const bogus = "bogus-access-token-0123456789abcdef"
	for _, mech := range []string{"xoauth2", "oauthbearer"} {
		env := dovecotOAuthEnv(t, "", mech)
		delete(env, "OAUTH_REFRESH_TOKEN")
		env["OAUTH_TOKEN_COMMAND"] = "echo " + bogus
		f := setenvAll(t, env)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var out, logs syncBuffer
		code := run(ctx, []string{"check", "--env-file", f}, nil, &out, &logs)
		cancel()
		t.Logf("%s check:\n%s", mech, out.String())
		if code != exitFailure || !strings.Contains(out.String(), "FAILED AUTH_FAILED") || !strings.Contains(out.String(), "OAuth") {
			t.Errorf("%s: check with a refused token: exit %d, want 1 with AUTH_FAILED and an OAuth hint", mech, code)
		}
		if strings.Contains(out.String(), "imap: BAD") {
			t.Errorf("%s: Dovecot answered BAD: the answer to its error challenge is malformed", mech)
		}
		if strings.Contains(out.String()+logs.String(), bogus) || strings.Contains(out.String()+logs.String(), bogus[6:26]) {
			t.Errorf("%s: the refused token is in the output or log", mech)
		}
	}
}
