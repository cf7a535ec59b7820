package config

import (
	"regexp"
	"slices"
	"strings"
)

// Several accounts.
//
// The unprefixed variables are the default account (the embedded sandbox
// when IMAP_HOST is empty). EMAIL_ACCOUNTS=work,home adds accounts that read
// the same account variables with the name, upper-cased, as a prefix:
// WORK_IMAP_HOST, WORK_IMAP_USER, WORK_OAUTH_REFRESH_TOKEN and so on, each
// with the same defaults, derived values and checks as its unprefixed twin,
// and an error names the prefixed variable. A named account never inherits
// the default account's values: a host or a login that is not written for
// it does not exist. The server's own variables (MCP_*, LOG_*, WAIT_*,
// EMAIL_DATA_DIR ...) have no prefix and hold for every account.

// Account is one named account: its name and its whole configuration (its
// own account variables, the server's variables shared).
type Account struct {
	Name string
	*Config
}

// APIKey is an HTTP API key and the accounts it may use (nil: every one).
type APIKey struct {
	Key      Secret
	Accounts []string
}

// accountScoped are the variables each account has its own of; a name
// ending in "_" stands for every variable it begins.
var accountScoped = []string{"IMAP_", "SMTP_", "OAUTH_", "TLS_CA_FILE", "EMAIL_PROVIDER", "EMAIL_AUTH",
	"DEFAULT_FROM_NAME", "INBOX_ADDRESS", "SAVE_SENT", "SENT_FOLDER", "SEND_ALLOWED_RECIPIENTS", "SEND_MAX_PER_HOUR"}

// AccountVariable reports whether each account has its own value of the
// variable name (with the account's prefix).
func AccountVariable(name string) bool {
	return slices.ContainsFunc(accountScoped, func(s string) bool {
		return name == s || strings.HasSuffix(s, "_") && strings.HasPrefix(name, s)
	})
}

var accountNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// Names of the default account when EMAIL_ACCOUNT_NAME is empty.
const (
	DefaultAccountName = "default"
	SandboxAccountName = "sandbox"
)

// Accounts lists every account, the default one first.
func (c *Config) Accounts() []Account {
	return append([]Account{{Name: c.defaultAccountName(), Config: c}}, c.accounts...)
}

// Account returns the account named name, or false.
func (c *Config) Account(name string) (Account, bool) {
	for _, a := range c.Accounts() {
		if a.Name == name {
			return a, true
		}
	}
	return Account{}, false
}

// APIKeys lists MCP_API_KEY (every account) and then MCP_API_KEYS. It
// parses them each time (Load checked them): a key is never kept outside a
// Secret, where a %v of the Config could print it.
func (c *Config) APIKeys() []APIKey {
	keys, _ := c.parseKeys()
	return keys
}

func (c *Config) defaultAccountName() string {
	switch {
	case c.EmailAccountName != "":
		return c.EmailAccountName
	case c.Sandbox():
		return SandboxAccountName
	}
	return DefaultAccountName
}

// prefix is the variable prefix of account name: "work" → "WORK_".
func prefix(name string) string { return strings.ToUpper(name) + "_" }

// varName is the name a variable has for this loader's account.
func (ld *loader) varName(name string) string {
	if ld.prefix != "" && AccountVariable(name) {
		return ld.prefix + name
	}
	return name
}

// loadAccounts loads every account of EMAIL_ACCOUNTS; errors go to ld.
func (ld *loader) loadAccounts(c *Config) {
	if ld.userSet("EMAIL_ACCOUNT_NAME") && !accountNameRE.MatchString(c.EmailAccountName) {
		ld.fail("EMAIL_ACCOUNT_NAME", c.EmailAccountName, "must be lower-case letters, digits and _, starting with a letter (at most 32)")
	}
	seen := map[string]bool{c.defaultAccountName(): true}
	for _, name := range c.EmailAccounts {
		switch {
		case !accountNameRE.MatchString(name):
			ld.fail("EMAIL_ACCOUNTS", strings.Join(c.EmailAccounts, ","), "each name must be lower-case letters, digits and _, starting with a letter (at most 32)")
			return
		case seen[name]:
			ld.fail("EMAIL_ACCOUNTS", strings.Join(c.EmailAccounts, ","), "names "+name+" twice (the unprefixed account is "+c.defaultAccountName()+")")
			return
		}
		seen[name] = true
		c.accounts = append(c.accounts, Account{Name: name, Config: ld.loadAccount(name)})
	}
}

// loadAccount loads one named account with its own loader and merges its
// errors into ld's (the server's variables, checked again, once).
func (ld *loader) loadAccount(name string) *Config {
	sub := &loader{env: ld.env, file: ld.file, sources: map[string]Source{}, failed: map[string]bool{}, prefix: prefix(name)}
	ac := &Config{accountName: name}
	sub.decodeAll(ac)
	sub.resolve(ac)
	if ac.IMAPHost == "" {
		sub.fail("IMAP_HOST", "", "required for the account "+name+" of EMAIL_ACCOUNTS")
	}
	sub.validate(ac)
	for _, e := range sub.errs {
		if !slices.ContainsFunc(ld.errs, func(x *VarError) bool { return *x == *e }) {
			ld.errs = append(ld.errs, e)
		}
	}
	ac.sources = sub.sources
	return ac
}

// loadKeys checks MCP_API_KEYS.
func (ld *loader) loadKeys(c *Config) {
	if _, reason := c.parseKeys(); reason != "" {
		ld.fail("MCP_API_KEYS", "", reason)
	}
}

// parseKeys reads MCP_API_KEY and MCP_API_KEYS; the reason of a bad entry
// never quotes it.
func (c *Config) parseKeys() ([]APIKey, string) {
	var keys []APIKey
	if c.MCPAPIKey.IsSet() {
		keys = append(keys, APIKey{Key: c.MCPAPIKey})
	}
	names := map[string]bool{}
	for _, a := range c.Accounts() {
		names[a.Name] = true
	}
	for _, entry := range splitList(c.MCPAPIKeys.Reveal()) {
		k, reason := parseKey(entry, names)
		if reason != "" {
			return nil, reason
		}
		keys = append(keys, k)
	}
	return keys, ""
}

// parseKey reads "KEY" or "work+home:KEY"; the reason never quotes the key.
func parseKey(entry string, accounts map[string]bool) (APIKey, string) {
	scope, key, scoped := strings.Cut(entry, ":")
	if !scoped {
		scope, key = "", entry
	}
	if !validKey(key) {
		return APIKey{}, "each key must be printable ASCII without spaces, commas or colons (write work+home:KEY to limit one to accounts)"
	}
	k := APIKey{Key: Secret(key)}
	if !scoped || scope == "*" {
		return k, ""
	}
	for _, name := range strings.Split(scope, "+") {
		if !accounts[name] {
			return APIKey{}, "a key is limited to " + quoteName(name) + ", which is no account (EMAIL_ACCOUNTS, EMAIL_ACCOUNT_NAME)"
		}
		k.Accounts = append(k.Accounts, name)
	}
	return k, ""
}

// quoteName quotes an account name as an error shows it, cut short.
func quoteName(s string) string {
	if len(s) > 32 || !accountNameRE.MatchString(s) {
		return "a name that is not valid"
	}
	return `"` + s + `"`
}

// validKey: printable ASCII, no blanks; ',' and ':' separate entries.
func validKey(k string) bool {
	return k != "" && !strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == ',' || r == ':' })
}
