package config_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

// TestProviderPresets: a preset fills what the user left unset, and every
// value it fills stays overridable.
func TestProviderPresets(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"gmail", map[string]string{"EMAIL_PROVIDER": "gmail", "IMAP_USER": "a@gmail.com", "IMAP_PASSWORD": "app-pass", "MCP_API_KEY": "k-0123456789abcdef"},
			map[string]string{"IMAP_HOST": "imap.gmail.com", "IMAP_PORT": "993", "SMTP_HOST": "smtp.gmail.com", "SMTP_PORT": "465",
				"SMTP_SSL": "true", "SAVE_SENT": "false", "EMAIL_AUTH": "password", "OAUTH_TOKEN_URL": "https://oauth2.googleapis.com/token",
				"OAUTH_SCOPES": "https://mail.google.com/"}},
		{"outlook without a password signs in with OAuth", map[string]string{"EMAIL_PROVIDER": "Outlook", "IMAP_USER": "a@outlook.com",
			"EMAIL_DATA_DIR": "/tmp/x", "OAUTH_CLIENT_ID": "cid", "MCP_API_KEY": "k-0123456789abcdef"},
			map[string]string{"IMAP_HOST": "outlook.office365.com", "SMTP_HOST": "smtp-mail.outlook.com", "SMTP_PORT": "587",
				"SMTP_SSL": "false", "SMTP_STARTTLS": "true", "EMAIL_AUTH": "oauth2", "SMTP_PASSWORD": "",
				"OAUTH_TOKEN_URL": "https://login.microsoftonline.com/consumers/oauth2/v2.0/token",
				"OAUTH_SCOPES":    "https://outlook.office.com/IMAP.AccessAsUser.All,https://outlook.office.com/SMTP.Send,offline_access"}},
		{"preset values are overridable", map[string]string{"EMAIL_PROVIDER": "office365", "IMAP_USER": "a@corp.example",
			"SMTP_HOST": "smtp.corp.example", "OAUTH_TOKEN_URL": "https://login.microsoftonline.com/tenant-id/oauth2/v2.0/token",
			"SAVE_SENT": "true", "OAUTH_REFRESH_TOKEN": "rt", "OAUTH_CLIENT_ID": "cid", "OAUTH_SCOPES": "a b, c", "MCP_API_KEY": "k-0123456789abcdef"},
			map[string]string{"IMAP_HOST": "outlook.office365.com", "SMTP_HOST": "smtp.corp.example", "SAVE_SENT": "true",
				"OAUTH_TOKEN_URL": "https://login.microsoftonline.com/tenant-id/oauth2/v2.0/token", "OAUTH_SCOPES": "a,b,c", "EMAIL_AUTH": "oauth2"}},
		{"fastmail", map[string]string{"EMAIL_PROVIDER": "fastmail", "IMAP_USER": "a@fastmail.com", "IMAP_PASSWORD": "p", "MCP_API_KEY": "k-0123456789abcdef"},
			map[string]string{"IMAP_HOST": "imap.fastmail.com", "SMTP_HOST": "smtp.fastmail.com", "SMTP_SSL": "true", "SAVE_SENT": "auto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLoad(t, tc.env)
			got := values(c)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s = %q, want %q", name, got[name], want)
				}
			}
			if tc.env["SMTP_HOST"] == "" && c.Source("SMTP_HOST") != config.SourcePreset {
				t.Errorf("Source(SMTP_HOST) = %v, want the preset", c.Source("SMTP_HOST"))
			}
		})
	}
}

// TestOAuthConfigErrors: every bad OAuth variable is named, at once.
func TestOAuthConfigErrors(t *testing.T) {
	base := map[string]string{"IMAP_HOST": "imap.example.com", "IMAP_USER": "a@example.com", "SMTP_HOST": "smtp.example.com",
		"EMAIL_AUTH": "oauth2", "MCP_API_KEY": "k-0123456789abcdef"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string // variables named
	}{
		{"no token source and nowhere to store one", base, []string{"OAUTH_REFRESH_TOKEN"}},
		{"refresh token without client and endpoint", with(base, "OAUTH_REFRESH_TOKEN", "rt"), []string{"OAUTH_CLIENT_ID", "OAUTH_TOKEN_URL"}},
		{"two sources", with(base, "OAUTH_TOKEN_COMMAND", "get-token", "OAUTH_ACCESS_TOKEN_FILE", "/run/token"), []string{"OAUTH_ACCESS_TOKEN_FILE"}},
		{"bad values", with(base, "OAUTH_TOKEN_COMMAND", "t", "EMAIL_PROVIDER", "hotmail", "OAUTH_MECHANISM", "plain",
			"OAUTH_TOKEN_URL", "http://auth.example.com/token", "EMAIL_AUTH", "kerberos"),
			[]string{"EMAIL_PROVIDER", "EMAIL_AUTH", "OAUTH_TOKEN_URL", "OAUTH_MECHANISM"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(config.LoadOptions{Environ: tc.env})
			var named []string
			for _, e := range joined(err) {
				var ve *config.VarError
				if errors.As(e, &ve) {
					named = append(named, ve.Name)
				}
			}
			for _, w := range tc.want {
				if !slices.Contains(named, w) {
					t.Errorf("Load() = %v, want an error naming %s", err, w)
				}
			}
		})
	}
	// oauth2 with a refresh token, client and preset endpoint: no password needed.
	ok := with(base, "OAUTH_REFRESH_TOKEN", "rt", "OAUTH_CLIENT_ID", "cid", "EMAIL_PROVIDER", "google-workspace")
	if _, err := config.Load(config.LoadOptions{Environ: ok}); err != nil {
		t.Errorf("Load(oauth2 with refresh token) = %v, want nil", err)
	}
}

func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// TestOAuthWarnsIgnoredPassword: a password beside EMAIL_AUTH=oauth2 is
// named as ignored.
func TestOAuthWarnsIgnoredPassword(t *testing.T) {
	c := mustLoad(t, map[string]string{"IMAP_HOST": "imap.example.com", "IMAP_USER": "a@example.com", "IMAP_PASSWORD": "p",
		"SMTP_HOST": "smtp.example.com", "EMAIL_AUTH": "oauth2", "OAUTH_TOKEN_COMMAND": "get-token", "MCP_API_KEY": "k-0123456789abcdef"})
	if !slices.ContainsFunc(c.Warnings(), func(w string) bool { return strings.Contains(w, "IMAP_PASSWORD and SMTP_PASSWORD are ignored") }) {
		t.Errorf("Warnings() = %q, want one about the ignored password", c.Warnings())
	}
}
