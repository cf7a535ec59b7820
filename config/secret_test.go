package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

const (
	imapPW = "imap-pw-Zq81"
	smtpPW = "smtp-pw-Xy42"
	apiKey = "api-key-Wv97-0123456789"
)

// secretConfig loads a real account with all three secrets set: two from the
// environment and one from the .env file.
func secretConfig(t *testing.T) *config.Config {
	t.Helper()
	path := writeFile(t, ".env", "SMTP_PASSWORD='"+smtpPW+"'\n")
	c, err := config.Load(config.LoadOptions{
		Environ: with(realAccount, "IMAP_PASSWORD", imapPW, "MCP_API_KEY", apiKey),
		EnvFile: path,
	})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if c.IMAPPassword.Reveal() != imapPW || c.SMTPPassword.Reveal() != smtpPW || c.MCPAPIKey.Reveal() != apiKey {
		t.Fatal("Reveal() does not give the loaded secrets")
	}
	return c
}

// assertNoSecret fails when out holds one of the secrets, or, with
// wantRedacted, lacks [redacted].
func assertNoSecret(t *testing.T, what, out string, wantRedacted bool) {
	t.Helper()
	for _, s := range []string{imapPW, smtpPW, apiKey, "Zq81", "Xy42", "Wv97"} {
		if strings.Contains(out, s) {
			t.Errorf("%s shows secret %q:\n%s", what, s, out)
		}
	}
	if wantRedacted && !strings.Contains(out, config.Redacted) {
		t.Errorf("%s does not say %s:\n%s", what, config.Redacted, out)
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	c := secretConfig(t)
	var fprint bytes.Buffer
	c.Fprint(&fprint)
	var text, jsonLog bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("config", "config", c, "key", c.MCPAPIKey)
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Info("config", "config", c, "key", c.MCPAPIKey)
	marshalled, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"Fprint":       fprint.String(),
		"slog text":    text.String(),
		"slog json":    jsonLog.String(),
		"json.Marshal": string(marshalled),
		"%v":           fmt.Sprintf("%v", c),
		"%+v":          fmt.Sprintf("%+v", c),
		"%#v":          fmt.Sprintf("%#v", *c),
		"%s":           fmt.Sprintf("%s", c.IMAPPassword),
		"%q":           fmt.Sprintf("%q", c.SMTPPassword),
		"%x":           fmt.Sprintf("%x %X", c.MCPAPIKey, c.MCPAPIKey),
		"%d":           fmt.Sprintf("%d", c.MCPAPIKey),
		"%10.3s":       fmt.Sprintf("%10.3s|%v", c.MCPAPIKey, []config.Secret{c.IMAPPassword}),
		"Sprint":       fmt.Sprint(c.IMAPPassword, c.SMTPPassword),
		"LogValue":     c.LogValue().String(),
	}
	for what, out := range outputs {
		assertNoSecret(t, what, out, true)
	}
	for _, w := range c.Warnings() {
		assertNoSecret(t, "warning", w, false)
	}
	if !strings.Contains(fprint.String(), "IMAP_PASSWORD=[redacted]") {
		t.Errorf("Fprint does not show IMAP_PASSWORD=[redacted]:\n%s", fprint.String())
	}
}

func TestSecretsNotInErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"API key with a space", with(nil, "MCP_API_KEY", "bad "+apiKey)},
		{"API key with a newline", with(nil, "MCP_API_KEY", apiKey+"\n"+imapPW)},
		{"base URL with a password", with(nil, "MCP_BASE_URL", "https://user:"+imapPW+"@mail.example.com")},
		{"origin with a password", with(nil, "MCP_ALLOWED_ORIGINS", "https://user:"+imapPW+"@app.example.com")},
		{"bad URL with a password", with(nil, "MCP_BASE_URL", "ftp://u:"+imapPW+"@x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.env)
			if err == nil {
				t.Fatal("Load() = nil, want an error")
			}
			for _, s := range []string{imapPW, apiKey} {
				if strings.Contains(err.Error(), s) || strings.Contains(fmt.Sprintf("%+v", err), s) {
					t.Errorf("Load() error %q shows a secret", err)
				}
			}
		})
	}
}

func TestSecretMethods(t *testing.T) {
	tests := []struct {
		s         config.Secret
		str, json string
		set       bool
	}{
		{"", "", `""`, false},
		{"x", config.Redacted, `"[redacted]"`, true},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := tt.s.MarshalText()
		if tt.s.String() != tt.str || tt.s.GoString() != tt.str || string(b) != tt.json ||
			string(text) != tt.str || tt.s.IsSet() != tt.set || tt.s.LogValue().String() != tt.str {
			t.Errorf("Secret(%d bytes): String %q GoString %q JSON %s Text %q IsSet %v LogValue %q",
				len(tt.s), tt.s.String(), tt.s.GoString(), b, text, tt.s.IsSet(), tt.s.LogValue())
		}
	}
}

const urlCanary = "S3CRET-canary-123"

// A URL-shaped host or a token-bearing URL must not be echoed back in the
// configuration error: the password/token inside it is a secret.
func TestConfigErrorsHideURLSecrets(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"IMAP_HOST as a URL with a password", with(realAccount, "IMAP_HOST", "imaps://agent:"+urlCanary+"@imap.example.com")},
		{"SMTP_HOST as a URL with a password", with(realAccount, "SMTP_HOST", "smtps://agent:"+urlCanary+"@smtp.example.com")},
		{"IMAP_HOST as user:password@host", with(realAccount, "IMAP_HOST", "agent:"+urlCanary+"@imap.example.com")},
		{"MCP_BASE_URL with a token in the query", with(nil, "MCP_BASE_URL", "https://mail.example.com/?access_token="+urlCanary)},
		{"MCP_ALLOWED_ORIGINS with a token in the query", with(nil, "MCP_ALLOWED_ORIGINS", "https://app.example.com/?token="+urlCanary)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.env)
			if err == nil {
				t.Fatal("Load() = nil, want an error")
			}
			if out := fmt.Sprintf("%v", err); strings.Contains(out, urlCanary) {
				t.Errorf("Load() error shows the secret:\n%s", out)
			}
		})
	}
}
