package config_test

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/config"
)

func TestDefaults(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want map[string]string // every variable
	}{
		{"sandbox", nil, map[string]string{
			"IMAP_HOST": "", "IMAP_PORT": "993", "IMAP_USER": "", "IMAP_PASSWORD": "",
			"IMAP_SSL": "true", "IMAP_STARTTLS": "true", "IMAP_ALLOW_PLAINTEXT": "false",
			"IMAP_TLS_SKIP_VERIFY": "false", "IMAP_POOL_SIZE": "3",
			"SMTP_HOST": "", "SMTP_PORT": "587", "SMTP_USER": "", "SMTP_PASSWORD": "",
			"SMTP_SSL": "false", "SMTP_STARTTLS": "true", "SMTP_ALLOW_PLAINTEXT": "false",
			"SMTP_TLS_SKIP_VERIFY": "false", "TLS_CA_FILE": "",
			"MCP_API_KEY": "", "MCP_API_KEYS": "", "EMAIL_ACCOUNTS": "", "EMAIL_ACCOUNT_NAME": "", "MCP_HOST": "127.0.0.1", "MCP_PORT": "8420",
			"MCP_SERVER_NAME": "email-mcp", "MCP_BASE_URL": "", "MCP_ALLOWED_ORIGINS": "",
			"MCP_ALLOWED_HOSTS": "", "MCP_MAX_CONNECTIONS": "1024", "SEND_ALLOWED_RECIPIENTS": "", "SEND_MAX_PER_HOUR": "100", "WAIT_POLL_MS": "0", "WAIT_PROGRESS_SECONDS": "10",
			"MCP_READ_ONLY": "false", "MCP_TOOLSETS": "mail,inbox", "RATE_LIMIT_PER_MINUTE": "1200",
			"DEFAULT_FROM_NAME": "", "INBOX_ADDRESS": "", "MAX_SEARCH_RESULTS": "50",
			"MAX_ATTACHMENT_SIZE_MB": "50", "EMAIL_BASE_DIR": "", "SAVE_SENT": "auto",
			"SENT_FOLDER": "", "WAIT_MAX_SECONDS": "120", "LOG_LEVEL": "info", "LOG_FORMAT": "text",
			"DEV_SMTP_ADDR": "127.0.0.1:2525", "DEV_IMAP_ADDR": "127.0.0.1:1143", "EMAIL_DATA_DIR": "",
			"EMAIL_PROVIDER": "custom", "EMAIL_AUTH": "password", "OAUTH_CLIENT_ID": "", "OAUTH_CLIENT_SECRET": "",
			"OAUTH_TOKEN_URL": "", "OAUTH_DEVICE_AUTH_URL": "", "OAUTH_AUTH_URL": "", "OAUTH_SCOPES": "", "OAUTH_REFRESH_TOKEN": "",
			"OAUTH_TOKEN_STORE": "", "OAUTH_TOKEN_COMMAND": "", "OAUTH_ACCESS_TOKEN_FILE": "", "OAUTH_MECHANISM": "auto",
		}},
		{"real account derives SMTP login and INBOX_ADDRESS", realAccount, map[string]string{
			"IMAP_HOST": "imap.example.com", "IMAP_USER": "agent@example.com",
			"IMAP_PASSWORD": "[redacted]", "SMTP_HOST": "smtp.example.com",
			"SMTP_USER": "agent@example.com", "SMTP_PASSWORD": "[redacted]",
			"SMTP_SSL": "false", "INBOX_ADDRESS": "agent@example.com",
		}},
		{"relative folders are made absolute", with(nil, "EMAIL_BASE_DIR", "work", "EMAIL_DATA_DIR", "./data"),
			map[string]string{
				"EMAIL_BASE_DIR": filepath.Join(wd, "work"), "EMAIL_DATA_DIR": filepath.Join(wd, "data"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := values(mustLoad(t, tt.env))
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("%s = %q, want %q", name, got[name], want)
				}
			}
		})
	}
	// The sandbox row must cover every variable, so a new one needs a default here.
	for _, name := range config.Names() {
		if _, ok := tests[0].want[name]; !ok {
			t.Errorf("variable %s has no row in the defaults table", name)
		}
	}
	if len(config.Names()) != len(tests[0].want) {
		t.Errorf("Names() has %d variables, defaults table %d", len(config.Names()), len(tests[0].want))
	}
}

func TestTypedDefaults(t *testing.T) {
	c := mustLoad(t, nil)
	if !c.Sandbox() || c.IMAPPort != 993 || !c.IMAPSSL || c.IMAPStartTLS != config.StartTLSRequired {
		t.Errorf("IMAP defaults = %v %d %v %q", c.Sandbox(), c.IMAPPort, c.IMAPSSL, c.IMAPStartTLS)
	}
	if c.LogLevel != slog.LevelInfo || c.LogFormat != config.LogFormatText || c.SaveSent != config.SaveSentAuto {
		t.Errorf("log/save defaults = %v %q %q", c.LogLevel, c.LogFormat, c.SaveSent)
	}
	if c.MaxAttachmentBytes() != 50<<20 || c.WaitMax() != 120*time.Second {
		t.Errorf("MaxAttachmentBytes() = %d, WaitMax() = %v", c.MaxAttachmentBytes(), c.WaitMax())
	}
	if !c.HasToolset(config.ToolsetMail) || !c.HasToolset(config.ToolsetInbox) || c.HasToolset("x") {
		t.Errorf("HasToolset with MCP_TOOLSETS=%v is wrong", c.MCPToolsets)
	}
	if c.ListenAddr() != "127.0.0.1:8420" {
		t.Errorf("ListenAddr() = %q", c.ListenAddr())
	}
	if got := c.Source("IMAP_PORT"); got != config.SourceDefault {
		t.Errorf("Source(IMAP_PORT) = %v, want default", got)
	}
}

func TestGoodValues(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"IMAP_SSL", "No", "false"},
		{"IMAP_SSL", "0", "false"},
		{"IMAP_SSL", "YES", "true"},
		{"MCP_READ_ONLY", "1", "true"},
		{"IMAP_STARTTLS", "NONE", "none"},
		{"IMAP_STARTTLS", "no", "false"},
		{"SMTP_STARTTLS", "yes", "true"},
		{"SAVE_SENT", "1", "true"},
		{"SAVE_SENT", " Auto ", "auto"},
		{"LOG_LEVEL", "WARNING", "warn"},
		{"LOG_LEVEL", "debug", "debug"},
		{"LOG_FORMAT", "JSON", "json"},
		{"IMAP_PORT", " 143 ", "143"},
		{"MAX_SEARCH_RESULTS", "200", "200"},
		{"RATE_LIMIT_PER_MINUTE", "0", "0"},
		{"MCP_TOOLSETS", " inbox , MAIL,inbox ", "inbox,mail"},
		{"MCP_TOOLSETS", "mail", "mail"},
		{"MCP_ALLOWED_ORIGINS", "HTTPS://App.Example.com:8443/, http://localhost:3000", "https://app.example.com:8443,http://localhost:3000"},
		{"MCP_ALLOWED_ORIGINS", "vscode-webview://abc123", "vscode-webview://abc123"},
		{"MCP_BASE_URL", "https://mail.example.com/", "https://mail.example.com"},
		{"MCP_ALLOWED_HOSTS", "Mail.Example.com., *.Corp.Example, *", "mail.example.com,*.corp.example,*"},
		{"SEND_ALLOWED_RECIPIENTS", "QA@Example.com, @Test.Example, corp.example, *.sub.example", "qa@example.com,test.example,corp.example,*.sub.example"},
		{"MCP_BASE_URL", "http://10.0.0.5:8420/mcp", "http://10.0.0.5:8420/mcp"},
		{"MCP_HOST", "0.0.0.0", "0.0.0.0"},
		{"MCP_HOST", "[::1]", "::1"},
		{"DEV_SMTP_ADDR", "127.0.0.1:0", "127.0.0.1:0"},
		{"DEV_IMAP_ADDR", "[::1]:1143", "[::1]:1143"},
		{"DEFAULT_FROM_NAME", "  Test Agent ", "Test Agent"},
		{"MCP_API_KEY", "k3y-with.punct~uation_0123456789", "[redacted]"},
		{"INBOX_ADDRESS", "tests@example.org", "tests@example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			got := values(mustLoad(t, with(nil, tt.name, tt.value)))[tt.name]
			if got != tt.want {
				t.Errorf("%s=%q gives %q, want %q", tt.name, tt.value, got, tt.want)
			}
		})
	}
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name, value string
		base        map[string]string
		reason      string // part of the VarError's Reason
	}{
		{"IMAP_PORT", "abc", nil, "must be a number from 1 to 65535"},
		{"IMAP_PORT", "0", nil, "from 1 to 65535"},
		{"SMTP_PORT", "65536", nil, "from 1 to 65535"},
		{"MCP_PORT", "-1", nil, "from 1 to 65535"},
		{"MCP_PORT", "80.5", nil, "from 1 to 65535"},
		{"IMAP_POOL_SIZE", "65", nil, "from 1 to 64"},
		{"MAX_SEARCH_RESULTS", "0", nil, "from 1 to 200"},
		{"MAX_SEARCH_RESULTS", "201", nil, "from 1 to 200"},
		{"MAX_ATTACHMENT_SIZE_MB", "2048", nil, "from 1 to 1024"},
		{"WAIT_MAX_SECONDS", "3601", nil, "from 1 to 3600"},
		{"RATE_LIMIT_PER_MINUTE", "-5", nil, "from 0 to 100000"},
		{"IMAP_SSL", "maybe", nil, "must be true or false"},
		{"IMAP_ALLOW_PLAINTEXT", "on", nil, "must be true or false"},
		{"IMAP_TLS_SKIP_VERIFY", "2", nil, "must be true or false"},
		{"SMTP_SSL", "tls", nil, "must be true or false"},
		{"SMTP_TLS_SKIP_VERIFY", "y", nil, "must be true or false"},
		{"SMTP_ALLOW_PLAINTEXT", "sure", nil, "must be true or false"},
		{"MCP_READ_ONLY", "ro", nil, "must be true or false"},
		{"IMAP_STARTTLS", "required", nil, "must be one of true, none, false"},
		{"SMTP_STARTTLS", "starttls", nil, "must be one of true, none, false"},
		{"SAVE_SENT", "always", nil, "must be one of auto, true, false"},
		{"LOG_LEVEL", "trace", nil, "must be one of debug, info, warn, error"},
		{"LOG_FORMAT", "xml", nil, "must be one of text, json"},
		{"MCP_TOOLSETS", "mail,calendar", nil, "each toolset must be mail or inbox"},
		{"MCP_TOOLSETS", " , ", nil, "at least one toolset"},
		{"MCP_BASE_URL", "mail.example.com", nil, "absolute http or https URL"},
		{"MCP_BASE_URL", "ftp://mail.example.com", nil, "absolute http or https URL"},
		{"MCP_BASE_URL", "https://mail.example.com/?a=b", nil, "query or fragment"},
		{"MCP_ALLOWED_ORIGINS", "https://ok.example.com,*", nil, "scheme://host[:port]"},
		{"MCP_ALLOWED_HOSTS", "mail.example.com:443", nil, "host name without port"},
		{"MCP_ALLOWED_HOSTS", "https://mail.example.com", nil, "host name without port"},
		{"MCP_ALLOWED_HOSTS", "*.", nil, "host name without port"},
		{"MCP_ALLOWED_HOSTS", ".", nil, "host name without port"},
		{"SEND_ALLOWED_RECIPIENTS", "*.", nil, "a domain (b.example"},
		{"SEND_ALLOWED_RECIPIENTS", "localhost", nil, "a domain (b.example"},
		{"SEND_ALLOWED_RECIPIENTS", "a@", nil, "an address"},
		{"SEND_ALLOWED_RECIPIENTS", "Bob <bob@example.com>", nil, "an address"},
		{"SEND_MAX_PER_HOUR", "-1", nil, ""},
		{"MCP_MAX_CONNECTIONS", "0", nil, ""},
		{"MCP_ALLOWED_ORIGINS", "null", nil, "scheme://host[:port]"},
		{"MCP_ALLOWED_ORIGINS", "https://app.example.com/path", nil, "scheme://host[:port]"},
		{"MCP_ALLOWED_ORIGINS", "app.example.com", nil, "scheme://host[:port]"},
		{"MCP_ALLOWED_ORIGINS", "https://app.example.com:99999", nil, "scheme://host[:port]"},
		{"DEV_SMTP_ADDR", "2525", nil, "must be host:port"},
		{"DEV_IMAP_ADDR", "localhost:imap", nil, "port from 0 to 65535"},
		{"IMAP_HOST", "imaps://imap.example.com", realAccount, "without a scheme"},
		{"IMAP_HOST", "imap.example.com:993", realAccount, "without a port (set IMAP_PORT)"},
		{"SMTP_HOST", "smtp example com", realAccount, "host name or IP address"},
		{"MCP_HOST", "localhost:8420", nil, "set MCP_PORT"},
		{"INBOX_ADDRESS", "not an address", nil, "must be an email address"},
		{"INBOX_ADDRESS", "Agent <a@example.com>", nil, "must be an email address"},
		{"DEFAULT_FROM_NAME", "Evil\r\nBcc: x@example.com", nil, "control characters"},
		{"SENT_FOLDER", "Sent\x00", nil, "control characters"},
		{"TLS_CA_FILE", "/nonexistent/ca.pem", nil, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			_, err := load(t, with(tt.base, tt.name, tt.value))
			errs := varErrors(t, err)
			if len(errs) != 1 || errs[0].Name != tt.name {
				t.Fatalf("Load(%s=%q) errors %q, want one for %s", tt.name, tt.value, names(errs), tt.name)
			}
			if !strings.Contains(errs[0].Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", errs[0].Reason, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), tt.name+": ") {
				t.Errorf("Error() = %q, want it to start with %q", err, tt.name+": ")
			}
		})
	}
}

func TestVarErrorText(t *testing.T) {
	tests := []struct {
		err  config.VarError
		want string
	}{
		{config.VarError{Name: "IMAP_PORT", Value: "abc", Reason: "must be a number from 1 to 65535"},
			`IMAP_PORT: must be a number from 1 to 65535 (got "abc")`},
		{config.VarError{Name: "IMAP_USER", Reason: "required when IMAP_HOST is set"},
			`IMAP_USER: required when IMAP_HOST is set`},
		{config.VarError{Name: "X", Value: strings.Repeat("v", 100), Reason: "bad"},
			`X: bad (got "` + strings.Repeat("v", 80) + `...")`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	_, err := load(t, with(nil, "IMAP_PORT", "abc"))
	if got, want := err.Error(), `IMAP_PORT: must be a number from 1 to 65535 (got "abc")`; got != want {
		t.Errorf("Load(IMAP_PORT=abc) = %q, want %q", got, want)
	}
}

func TestManyBadValuesAtOnce(t *testing.T) {
	env := with(realAccount,
		"LOG_LEVEL", "loud", "IMAP_PORT", "x", "MCP_TOOLSETS", "tools", "IMAP_USER", "\x00",
		"SMTP_HOST", "\x00", "DEV_IMAP_ADDR", "nowhere", "WAIT_MAX_SECONDS", "0")
	_, err := load(t, env)
	got := names(varErrors(t, err))
	want := []string{"IMAP_PORT", "IMAP_USER", "SMTP_HOST", "MCP_TOOLSETS", "WAIT_MAX_SECONDS", "LOG_LEVEL", "DEV_IMAP_ADDR"}
	if !slices.Equal(got, want) {
		t.Errorf("Load() errors for %q, want %q (in field order)", got, want)
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != len(want) {
		t.Errorf("Error() has %d lines, want one per variable:\n%s", len(lines), err)
	}
}

func TestRealAccountRequirements(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // names of the errors; nil means Load succeeds
	}{
		{"complete", realAccount, nil},
		{"no user", with(realAccount, "IMAP_USER", "\x00"), []string{"IMAP_USER"}},
		{"no password", with(realAccount, "IMAP_PASSWORD", ""), []string{"IMAP_PASSWORD"}},
		{"no smtp", with(realAccount, "SMTP_HOST", "\x00"), []string{"SMTP_HOST"}},
		{"no smtp but read-only", with(realAccount, "SMTP_HOST", "\x00", "MCP_READ_ONLY", "true"), nil},
		{"nothing but the host", map[string]string{"IMAP_HOST": "imap.example.com"},
			[]string{"IMAP_USER", "IMAP_PASSWORD", "SMTP_HOST"}},
		{"sandbox needs nothing", map[string]string{"SMTP_HOST": "smtp.example.com"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.env)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load() = %v, want nil", err)
				}
				return
			}
			if got := names(varErrors(t, err)); !slices.Equal(got, tt.want) {
				t.Errorf("Load() errors for %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSMTPLoginDefaults(t *testing.T) {
	c := mustLoad(t, with(realAccount, "SMTP_USER", "sender", "SMTP_PASSWORD", "smtp-pw"))
	if c.SMTPUser != "sender" || c.SMTPPassword.Reveal() != "smtp-pw" {
		t.Errorf("explicit SMTP login = %q/%q, want sender/smtp-pw", c.SMTPUser, c.SMTPPassword.Reveal())
	}
	c = mustLoad(t, realAccount)
	if c.SMTPUser != "agent@example.com" || c.SMTPPassword.Reveal() != "imap-secret-pw" {
		t.Errorf("derived SMTP login = %q/%q, want the IMAP one", c.SMTPUser, c.SMTPPassword.Reveal())
	}
	if c.Source("SMTP_USER") != config.SourceDerived {
		t.Errorf("Source(SMTP_USER) = %v, want derived", c.Source("SMTP_USER"))
	}
}

func TestSMTPSSLDefault(t *testing.T) {
	tests := []struct {
		port, ssl string
		want      bool
	}{
		{"", "", false},
		{"587", "", false},
		{"465", "", true},
		{"25", "", false},
		{"465", "false", false},
		{"2465", "true", true},
		{"587", "yes", true},
	}
	for _, tt := range tests {
		t.Run(tt.port+"/"+tt.ssl, func(t *testing.T) {
			c := mustLoad(t, with(realAccount, "SMTP_PORT", tt.port, "SMTP_SSL", tt.ssl))
			if c.SMTPUseSSL() != tt.want || c.SMTPSSL != tt.want {
				t.Errorf("SMTP_PORT=%q SMTP_SSL=%q: SMTPUseSSL() = %v, want %v", tt.port, tt.ssl, c.SMTPUseSSL(), tt.want)
			}
		})
	}
}

func TestInboxAddress(t *testing.T) {
	tests := []struct {
		name             string
		env              map[string]string
		inbox, from      string
		wantInboxWarning bool
	}{
		{"from IMAP_USER", realAccount, "agent@example.com", "agent@example.com", false},
		{"explicit", with(realAccount, "INBOX_ADDRESS", "tests@example.org"), "tests@example.org", "tests@example.org", false},
		{"user is not an address", with(realAccount, "IMAP_USER", "agent"), "", "", true},
		{"user not an address, smtp user is", with(realAccount, "IMAP_USER", "agent", "SMTP_USER", "me@example.com"),
			"", "me@example.com", true},
		{"user not an address, explicit inbox", with(realAccount, "IMAP_USER", "agent", "INBOX_ADDRESS", "t@example.com"),
			"t@example.com", "t@example.com", false},
		{"derived inbox, from follows SMTP_USER", with(realAccount, "SMTP_USER", "out@example.com"),
			"agent@example.com", "out@example.com", false},
		{"display form is not derived", with(realAccount, "IMAP_USER", "Agent <agent@example.com>"), "", "", true},
		{"sandbox has none", nil, "", "", false},
		{"mail toolset only: no warning", with(realAccount, "IMAP_USER", "agent", "MCP_TOOLSETS", "mail"), "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.env)
			if c.InboxAddress != tt.inbox || c.FromAddress() != tt.from {
				t.Errorf("InboxAddress = %q, FromAddress() = %q, want %q, %q", c.InboxAddress, c.FromAddress(), tt.inbox, tt.from)
			}
			got := slices.ContainsFunc(c.Warnings(), func(w string) bool { return strings.HasPrefix(w, "INBOX_ADDRESS") })
			if got != tt.wantInboxWarning {
				t.Errorf("INBOX_ADDRESS warning = %v, want %v (%q)", got, tt.wantInboxWarning, c.Warnings())
			}
		})
	}
}

func TestRealEnvironment(t *testing.T) {
	t.Setenv("MCP_PORT", "9001")
	t.Setenv("MCP_SERVER_NAME", "from-env")
	file := writeFile(t, ".env", "MCP_SERVER_NAME=from-file\nLOG_FORMAT=json\n")
	before, hadBefore := os.LookupEnv("LOG_FORMAT")
	c, err := config.Load(config.LoadOptions{EnvFile: file})
	if err != nil {
		t.Fatalf("Load() = %v, want nil", err)
	}
	if c.MCPPort != 9001 || c.MCPServerName != "from-env" || c.LogFormat != config.LogFormatJSON {
		t.Errorf("got MCP_PORT=%d MCP_SERVER_NAME=%q LOG_FORMAT=%q, want 9001 from-env json", c.MCPPort, c.MCPServerName, c.LogFormat)
	}
	if after, hasAfter := os.LookupEnv("LOG_FORMAT"); after != before || hasAfter != hadBefore {
		t.Errorf("Load changed the process environment: LOG_FORMAT=%q (was %q)", after, before)
	}
}

func TestLoadErrorsMatchErrInvalid(t *testing.T) {
	_, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: "/nonexistent/x.env", EnvFileExplicit: true})
	if !errors.Is(err, config.ErrInvalid) || !errors.Is(err, config.ErrEnvFile) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing explicit file) = %v, want ErrInvalid, ErrEnvFile and ErrNotExist", err)
	}
}

func TestIMAPPortFollowsSSL(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want int
	}{
		{nil, 993},
		{map[string]string{"IMAP_SSL": "false"}, 143},
		{map[string]string{"IMAP_SSL": "false", "IMAP_PORT": "1143"}, 1143},
		{map[string]string{"IMAP_SSL": "true", "IMAP_PORT": "143"}, 143},
	}
	for _, tc := range tests {
		c := mustLoad(t, tc.env)
		if c.IMAPPort != tc.want {
			t.Errorf("Load(%v).IMAPPort = %d, want %d", tc.env, c.IMAPPort, tc.want)
		}
	}
}

func TestWaitPollDefault(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want time.Duration
	}{
		{"sandbox: IDLE push is instant", nil, 0},
		{"remote server: IDLE only", realAccount, 0},
		{"loopback server: poll while waiting", with(realAccount, "IMAP_HOST", "127.0.0.1", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"), 25 * time.Millisecond},
		{"loopback, explicitly off", with(realAccount, "IMAP_HOST", "localhost", "WAIT_POLL_MS", "0"), 0},
		{"remote, explicitly on", with(realAccount, "WAIT_POLL_MS", "200"), 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustLoad(t, tt.env).WaitPoll(); got != tt.want {
				t.Errorf("WaitPoll() = %v, want %v", got, tt.want)
			}
		})
	}
}
