package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

// twoAccounts is the default account plus work and home, each complete.
var twoAccounts = with(realAccount,
	"EMAIL_ACCOUNTS", "work,home",
	"WORK_IMAP_HOST", "imap.work.example", "WORK_IMAP_USER", "me@work.example", "WORK_IMAP_PASSWORD", "work-secret-pw",
	"WORK_SMTP_HOST", "smtp.work.example", "WORK_IMAP_POOL_SIZE", "5",
	"HOME_EMAIL_PROVIDER", "fastmail", "HOME_IMAP_USER", "me@home.example", "HOME_IMAP_PASSWORD", "home-secret-pw",
	"MCP_API_KEY", "key-of-everything-0123",
)

func TestAccountsLoadWithPrefixes(t *testing.T) {
	c := mustLoad(t, twoAccounts)
	accts := c.Accounts()
	names := make([]string, len(accts))
	for i, a := range accts {
		names[i] = a.Name
	}
	if !slices.Equal(names, []string{"default", "work", "home"}) {
		t.Fatalf("Accounts() = %v, want default, work, home", names)
	}
	work, home := accts[1], accts[2]
	if work.IMAPHost != "imap.work.example" || work.IMAPUser != "me@work.example" || work.IMAPPoolSize != 5 {
		t.Errorf("work = %s %s pool %d", work.IMAPHost, work.IMAPUser, work.IMAPPoolSize)
	}
	// Derived values come from the account's own variables.
	if work.SMTPUser != "me@work.example" || work.SMTPPassword.Reveal() != "work-secret-pw" || work.InboxAddress != "me@work.example" {
		t.Errorf("work derived SMTP_USER %q, INBOX_ADDRESS %q", work.SMTPUser, work.InboxAddress)
	}
	if home.IMAPHost != "imap.fastmail.com" || home.SMTPHost != "smtp.fastmail.com" {
		t.Errorf("home preset hosts = %s, %s", home.IMAPHost, home.SMTPHost)
	}
	// Nothing of the default account leaks into a named one, and the
	// server's variables are shared.
	if home.IMAPPoolSize != 3 || accts[0].IMAPHost != "imap.example.com" || home.MCPAPIKey.Reveal() != "key-of-everything-0123" {
		t.Errorf("home pool %d, default host %s", home.IMAPPoolSize, accts[0].IMAPHost)
	}
}

func TestAccountErrorsNamePrefixedVariables(t *testing.T) {
	_, err := load(t, with(twoAccounts, "WORK_IMAP_PORT", "99999", "HOME_EMAIL_PROVIDER", "\x00", "WORK_IMAP_PASSWORD", "\x00"))
	if err == nil {
		t.Fatal("Load() = nil, want errors")
	}
	msg := err.Error()
	for _, want := range []string{"WORK_IMAP_PORT", "HOME_IMAP_HOST", "WORK_IMAP_PASSWORD"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %s:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "secret-pw") {
		t.Errorf("error shows a password:\n%s", msg)
	}
	if strings.Count(msg, "MCP_") != 0 {
		t.Errorf("server variables reported for an account:\n%s", msg)
	}
}

func TestAccountNames(t *testing.T) {
	for _, bad := range []string{"Work", "1st", "work,work", "default", "a-b", strings.Repeat("x", 33)} {
		if _, err := load(t, with(realAccount, "EMAIL_ACCOUNTS", bad)); err == nil || !strings.Contains(err.Error(), "EMAIL_ACCOUNTS") {
			t.Errorf("EMAIL_ACCOUNTS=%q: err = %v, want an EMAIL_ACCOUNTS error", bad, err)
		}
	}
	c := mustLoad(t, map[string]string{})
	if got := c.Accounts()[0].Name; got != "sandbox" {
		t.Errorf("sandbox account name = %q", got)
	}
	c = mustLoad(t, with(realAccount, "EMAIL_ACCOUNT_NAME", "personal"))
	if got := c.Accounts()[0].Name; got != "personal" {
		t.Errorf("EMAIL_ACCOUNT_NAME: name = %q", got)
	}
}

func TestAPIKeyScopes(t *testing.T) {
	c := mustLoad(t, with(twoAccounts, "MCP_API_KEYS", "work:key-of-work-01234, home+work:key-of-both-01234 ,*:key-of-star-01234,key-plain-01234"))
	var got []string
	for _, k := range c.APIKeys() {
		got = append(got, k.Key.Reveal()+"="+strings.Join(k.Accounts, "+"))
	}
	want := []string{"key-of-everything-0123=", "key-of-work-01234=work", "key-of-both-01234=home+work", "key-of-star-01234=", "key-plain-01234="}
	if !slices.Equal(got, want) {
		t.Fatalf("APIKeys() = %v, want %v", got, want)
	}
	for _, bad := range []string{"play:key-of-play-0123", "work:", "work:two words", "work:a:b"} {
		_, err := load(t, with(twoAccounts, "MCP_API_KEYS", bad))
		if err == nil || !strings.Contains(err.Error(), "MCP_API_KEYS") {
			t.Errorf("MCP_API_KEYS=%q: err = %v", bad, err)
			continue
		}
		if strings.Contains(err.Error(), "key-of") || strings.Contains(err.Error(), "words") {
			t.Errorf("MCP_API_KEYS=%q: the error quotes the key: %v", bad, err)
		}
	}
}

func TestAccountVariablesInEnvFileAreKnown(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	body := "EMAIL_ACCOUNTS=work\nWORK_IMAP_HOST=imap.work.example\nWORK_IMAP_USER=me@work.example\nWORK_IMAP_PASSWORD=pw-of-work-1\n" +
		"WORK_SMTP_HOST=smtp.work.example\nWORK_TYPO_HOST=x\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(c.Warnings(), "\n")
	if strings.Contains(w, "WORK_IMAP_HOST") || !strings.Contains(w, "WORK_TYPO_HOST") {
		t.Errorf("warnings = %s", w)
	}
	if got := c.Accounts()[1].IMAPHost; got != "imap.work.example" {
		t.Errorf("work IMAP_HOST from .env = %q", got)
	}
}

func TestAccountTokenStores(t *testing.T) {
	dir := t.TempDir()
	c := mustLoad(t, with(twoAccounts, "EMAIL_DATA_DIR", dir, "HOME_OAUTH_TOKEN_STORE", filepath.Join(dir, "mine.json")))
	want := map[string]string{"default": "oauth-token.json", "work": "oauth-token-work.json", "home": "mine.json"}
	for _, a := range c.Accounts() {
		if got := a.TokenStorePath(); got != filepath.Join(dir, want[a.Name]) {
			t.Errorf("%s: TokenStorePath() = %s, want %s", a.Name, got, want[a.Name])
		}
	}
	if _, ok := c.Account("play"); ok {
		t.Error(`Account("play") found an account`)
	}
}
