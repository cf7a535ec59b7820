package config

import (
	"log/slog"
	"net"
	"net/mail"
	"slices"
	"strconv"
	"time"
)

// Config is the whole configuration of email-mcp, one field per variable.
//
// The struct tags follow envconfig's conventions: `envconfig` is the variable
// name (there is no prefix), `default` its default and `desc` the line that
// [Usage] prints. `range:"min,max"` bounds a number. Load fills every field;
// derived values (SMTP_SSL, SMTP_USER, SMTP_PASSWORD, INBOX_ADDRESS) are
// already resolved when Load returns.
type Config struct {
	IMAPHost           string   `envconfig:"IMAP_HOST" desc:"IMAP server host name; empty runs the embedded sandbox mail server"`
	IMAPPort           int      `envconfig:"IMAP_PORT" default:"993" range:"1,65535" desc:"IMAP server port (default 993; 143 when IMAP_SSL=false)"`
	IMAPUser           string   `envconfig:"IMAP_USER" desc:"IMAP login name (required with IMAP_HOST)"`
	IMAPPassword       Secret   `envconfig:"IMAP_PASSWORD" desc:"IMAP password (required with IMAP_HOST)"`
	IMAPSSL            bool     `envconfig:"IMAP_SSL" default:"true" desc:"implicit TLS (IMAPS, port 993)"`
	IMAPStartTLS       StartTLS `envconfig:"IMAP_STARTTLS" default:"true" desc:"when IMAP_SSL=false: true (required), none (when offered; weaker), false (plain text)"`
	IMAPAllowPlaintext bool     `envconfig:"IMAP_ALLOW_PLAINTEXT" default:"false" desc:"allow the IMAP password in clear text to a host that is not loopback (IMAP_STARTTLS=false, or none without STARTTLS)"`
	IMAPTLSSkipVerify  bool     `envconfig:"IMAP_TLS_SKIP_VERIFY" default:"false" desc:"do not verify the IMAP server certificate (insecure)"`
	IMAPPoolSize       int      `envconfig:"IMAP_POOL_SIZE" default:"3" range:"1,64" desc:"IMAP connections kept open"`

	SMTPHost           string   `envconfig:"SMTP_HOST" desc:"SMTP submission host (required with IMAP_HOST unless MCP_READ_ONLY=true)"`
	SMTPPort           int      `envconfig:"SMTP_PORT" default:"587" range:"1,65535" desc:"SMTP submission port"`
	SMTPUser           string   `envconfig:"SMTP_USER" desc:"SMTP login name (default: IMAP_USER)"`
	SMTPPassword       Secret   `envconfig:"SMTP_PASSWORD" desc:"SMTP password (default: IMAP_PASSWORD)"`
	SMTPSSL            bool     `envconfig:"SMTP_SSL" desc:"implicit TLS (default: true when SMTP_PORT=465)"`
	SMTPStartTLS       StartTLS `envconfig:"SMTP_STARTTLS" default:"true" desc:"when SMTP_SSL=false: true (required), none (when offered; weaker), false (plain text)"`
	SMTPAllowPlaintext bool     `envconfig:"SMTP_ALLOW_PLAINTEXT" default:"false" desc:"allow the SMTP password in clear text to a host that is not loopback (SMTP_STARTTLS=false, or none without STARTTLS)"`
	SMTPTLSSkipVerify  bool     `envconfig:"SMTP_TLS_SKIP_VERIFY" default:"false" desc:"do not verify the SMTP server certificate (insecure)"`

	TLSCAFile string `envconfig:"TLS_CA_FILE" desc:"PEM file of extra CA certificates to trust"`

	EmailAccounts    []string `envconfig:"EMAIL_ACCOUNTS" desc:"comma list of more accounts by name (work,home): each reads the account variables with its name as prefix (WORK_IMAP_HOST, WORK_IMAP_USER, WORK_SMTP_HOST ...)"`
	EmailAccountName string   `envconfig:"EMAIL_ACCOUNT_NAME" desc:"name of the account of the unprefixed variables, for the account argument (default: default, or sandbox for the embedded sandbox)"`

	EmailProvider        Provider  `envconfig:"EMAIL_PROVIDER" default:"custom" desc:"preset of hosts, ports, TLS, OAuth endpoints and quirks: gmail, google-workspace, outlook, office365, icloud, fastmail, yahoo, zoho, custom (none); every value stays overridable"`
	EmailAuth            AuthMode  `envconfig:"EMAIL_AUTH" desc:"how to sign in: password or oauth2 (default: oauth2 when an OAUTH_ token source is set, or for outlook/office365 without IMAP_PASSWORD; else password)"`
	OAuthClientID        string    `envconfig:"OAUTH_CLIENT_ID" desc:"OAuth 2.0 client (application) id of your app registration"`
	OAuthClientSecret    Secret    `envconfig:"OAUTH_CLIENT_SECRET" desc:"OAuth 2.0 client secret (empty for public clients)"`
	OAuthTokenURL        string    `envconfig:"OAUTH_TOKEN_URL" desc:"OAuth 2.0 token endpoint (from EMAIL_PROVIDER)"`
	OAuthDeviceAuthURL   string    `envconfig:"OAUTH_DEVICE_AUTH_URL" desc:"OAuth 2.0 device authorization endpoint for email-mcp login (from EMAIL_PROVIDER)"`
	OAuthAuthURL         string    `envconfig:"OAUTH_AUTH_URL" desc:"OAuth 2.0 authorization endpoint for email-mcp login --browser (from EMAIL_PROVIDER)"`
	OAuthScopes          []string  `envconfig:"OAUTH_SCOPES" desc:"scopes to ask for, comma or space separated (from EMAIL_PROVIDER)"`
	OAuthRefreshToken    Secret    `envconfig:"OAUTH_REFRESH_TOKEN" desc:"OAuth 2.0 refresh token (instead of the one email-mcp login stores)"`
	OAuthTokenStore      string    `envconfig:"OAUTH_TOKEN_STORE" desc:"file where email-mcp login stores the refresh token, 0600 (default: EMAIL_DATA_DIR/oauth-token.json)"`
	OAuthTokenCommand    string    `envconfig:"OAUTH_TOKEN_COMMAND" desc:"command (no shell; words split on blanks) that prints an access token, or JSON with access_token and expires_in"`
	OAuthAccessTokenFile string    `envconfig:"OAUTH_ACCESS_TOKEN_FILE" desc:"file holding an access token (or that JSON) that something else keeps fresh; read at each login"`
	OAuthMechanism       Mechanism `envconfig:"OAUTH_MECHANISM" default:"auto" desc:"SASL mechanism for the token: auto (OAUTHBEARER when offered, else XOAUTH2), xoauth2, oauthbearer"`

	MCPAPIKey          Secret   `envconfig:"MCP_API_KEY" desc:"API key for the HTTP endpoints (empty: a random key is printed)"`
	MCPAPIKeys         Secret   `envconfig:"MCP_API_KEYS" desc:"more API keys, comma separated, each limited to some accounts as work+home:KEY (a key without a prefix may use every account)"`
	MCPHost            string   `envconfig:"MCP_HOST" default:"127.0.0.1" desc:"HTTP listen address"`
	MCPPort            int      `envconfig:"MCP_PORT" default:"8420" range:"1,65535" desc:"HTTP listen port"`
	MCPServerName      string   `envconfig:"MCP_SERVER_NAME" default:"email-mcp" desc:"server name announced to MCP clients"`
	MCPBaseURL         string   `envconfig:"MCP_BASE_URL" desc:"public http(s) URL of this server, for printed client settings"`
	MCPAllowedOrigins  []string `envconfig:"MCP_ALLOWED_ORIGINS" desc:"comma list of browser origins allowed besides loopback (scheme://host[:port])"`
	MCPAllowedHosts    []string `envconfig:"MCP_ALLOWED_HOSTS" desc:"comma list of Host names accepted besides IP literals, localhost and MCP_BASE_URL's host (*.example.com for subdomains, * for any)"`
	MCPMaxConnections  int      `envconfig:"MCP_MAX_CONNECTIONS" default:"1024" range:"1,1000000" desc:"open HTTP connections at once; more get 503"`
	MCPReadOnly        bool     `envconfig:"MCP_READ_ONLY" default:"false" desc:"hide every tool that changes a mailbox or sends mail"`
	MCPToolsets        []string `envconfig:"MCP_TOOLSETS" default:"mail,inbox" desc:"comma list of toolsets: mail, inbox"`
	RateLimitPerMinute int      `envconfig:"RATE_LIMIT_PER_MINUTE" default:"1200" range:"0,100000" desc:"tool calls per minute per API key, bursts of half that (0: off)"`

	DefaultFromName       string   `envconfig:"DEFAULT_FROM_NAME" desc:"display name of sent mail"`
	InboxAddress          string   `envconfig:"INBOX_ADDRESS" desc:"address for +tag test inboxes (default: IMAP_USER when it is an address)"`
	MaxSearchResults      int      `envconfig:"MAX_SEARCH_RESULTS" default:"50" range:"1,200" desc:"default page size of search_emails"`
	MaxAttachmentSizeMB   int      `envconfig:"MAX_ATTACHMENT_SIZE_MB" default:"50" range:"1,1024" desc:"largest attachment read or sent, in MiB"`
	EmailBaseDir          string   `envconfig:"EMAIL_BASE_DIR" desc:"folder that holds the attachments workspace (made absolute)"`
	SaveSent              SaveSent `envconfig:"SAVE_SENT" default:"auto" desc:"append sent mail to the Sent folder: auto, true, false"`
	SentFolder            string   `envconfig:"SENT_FOLDER" desc:"Sent folder name (empty: the \\Sent special-use folder)"`
	SendAllowedRecipients []string `envconfig:"SEND_ALLOWED_RECIPIENTS" desc:"comma list of addresses and domains mail may be sent to (a@b.example, b.example, *.b.example); empty: anyone"`
	SendMaxPerHour        int      `envconfig:"SEND_MAX_PER_HOUR" default:"100" range:"0,1000000" desc:"messages the send tools may send per hour (0: no cap)"`
	WaitPollMS            int      `envconfig:"WAIT_POLL_MS" range:"0,60000" desc:"while a wait is active, also check the folder every N ms (default: 25 when IMAP_HOST is loopback, else 0: IDLE push only)"`
	WaitProgressSeconds   int      `envconfig:"WAIT_PROGRESS_SECONDS" default:"10" range:"1,60" desc:"how often a wait_for_* call sends a progress notification (when the client asks for them)"`
	WaitMaxSeconds        int      `envconfig:"WAIT_MAX_SECONDS" default:"120" range:"1,3600" desc:"upper bound of wait_for_* timeouts"`

	LogLevel  slog.Level `envconfig:"LOG_LEVEL" default:"info" desc:"debug, info, warn, error"`
	LogFormat LogFormat  `envconfig:"LOG_FORMAT" default:"text" desc:"text or json"`

	DevSMTPAddr  string `envconfig:"DEV_SMTP_ADDR" default:"127.0.0.1:2525" desc:"sandbox SMTP listen address (host:port)"`
	DevIMAPAddr  string `envconfig:"DEV_IMAP_ADDR" default:"127.0.0.1:1143" desc:"sandbox IMAP listen address (host:port)"`
	EmailDataDir string `envconfig:"EMAIL_DATA_DIR" desc:"sandbox mail store folder (empty: in memory; made absolute)"`

	sources  map[string]Source // where each variable came from; no values
	fileKeys []string          // unknown names found in the .env file
	accounts []Account         // EMAIL_ACCOUNTS, loaded (accounts.go)
	// accountName is the name of an account of EMAIL_ACCOUNTS, "" for the
	// default account (the Config that Load returns).
	accountName string
}

// StartTLS is the STARTTLS mode of IMAP_STARTTLS and SMTP_STARTTLS.
type StartTLS string

// The STARTTLS modes, spelled as in the variables.
const (
	StartTLSRequired      StartTLS = "true"  // upgrade, or fail when the server does not offer it
	StartTLSOpportunistic StartTLS = "none"  // upgrade when offered, else plain text (weaker)
	StartTLSDisabled      StartTLS = "false" // plain text; refused to non-loopback hosts unless allowed
)

// Decode implements envconfig.Decoder: none, or a boolean spelling.
func (m *StartTLS) Decode(s string) error {
	if lower(s) == string(StartTLSOpportunistic) {
		*m = StartTLSOpportunistic
		return nil
	}
	b, err := parseBool(s)
	if err != nil {
		return reasonError("must be one of true, none, false")
	}
	*m = StartTLS(strconv.FormatBool(b))
	return nil
}

// SaveSent is the SAVE_SENT mode.
type SaveSent string

// The SAVE_SENT modes.
const (
	SaveSentAuto   SaveSent = "auto"  // append unless the server saves sent mail itself
	SaveSentAlways SaveSent = "true"  // always append a copy to the Sent folder
	SaveSentNever  SaveSent = "false" // never append
)

// Decode implements envconfig.Decoder: auto, or a boolean spelling.
func (m *SaveSent) Decode(s string) error {
	if lower(s) == string(SaveSentAuto) {
		*m = SaveSentAuto
		return nil
	}
	b, err := parseBool(s)
	if err != nil {
		return reasonError("must be one of auto, true, false")
	}
	*m = SaveSent(strconv.FormatBool(b))
	return nil
}

// LogFormat is the LOG_FORMAT value.
type LogFormat string

// The log formats.
const (
	LogFormatText LogFormat = "text"
	LogFormatJSON LogFormat = "json"
)

// Decode implements envconfig.Decoder.
func (f *LogFormat) Decode(s string) error {
	switch v := LogFormat(lower(s)); v {
	case LogFormatText, LogFormatJSON:
		*f = v
		return nil
	}
	return reasonError("must be one of text, json")
}

// The toolsets of MCP_TOOLSETS.
const (
	ToolsetMail  = "mail"
	ToolsetInbox = "inbox"
)

// Sandbox reports whether the embedded sandbox mail server is used, which is
// the case when IMAP_HOST is empty.
func (c *Config) Sandbox() bool { return c.IMAPHost == "" }

// SMTPUseSSL reports whether SMTP uses implicit TLS. Load resolves the
// default (true when SMTP_PORT=465) into SMTPSSL; under implicit TLS
// SMTP_STARTTLS is ignored.
func (c *Config) SMTPUseSSL() bool { return c.SMTPSSL }

// IMAPAddr is the IMAP server's host:port.
func (c *Config) IMAPAddr() string {
	return net.JoinHostPort(c.IMAPHost, strconv.Itoa(c.IMAPPort))
}

// SMTPAddr is the SMTP server's host:port.
func (c *Config) SMTPAddr() string {
	return net.JoinHostPort(c.SMTPHost, strconv.Itoa(c.SMTPPort))
}

// ListenAddr is the HTTP server's listen address, MCP_HOST:MCP_PORT.
func (c *Config) ListenAddr() string {
	return net.JoinHostPort(c.MCPHost, strconv.Itoa(c.MCPPort))
}

// MaxAttachmentBytes is MAX_ATTACHMENT_SIZE_MB in bytes.
func (c *Config) MaxAttachmentBytes() int64 {
	return int64(c.MaxAttachmentSizeMB) << 20
}

// WaitMax is WAIT_MAX_SECONDS as a duration.
func (c *Config) WaitMax() time.Duration {
	return time.Duration(c.WaitMaxSeconds) * time.Second
}

// WaitProgress is WAIT_PROGRESS_SECONDS as a duration.
func (c *Config) WaitProgress() time.Duration {
	return time.Duration(c.WaitProgressSeconds) * time.Second
}

// WaitPoll is WAIT_POLL_MS as a duration (0: IDLE push only).
func (c *Config) WaitPoll() time.Duration {
	return time.Duration(c.WaitPollMS) * time.Millisecond
}

// HasToolset reports whether MCP_TOOLSETS enables the named toolset.
func (c *Config) HasToolset(name string) bool {
	return slices.Contains(c.MCPToolsets, name)
}

// FromAddress is the address sent mail comes from (DESIGN.md): INBOX_ADDRESS
// when the user set it, else SMTP_USER when that is an email address, else
// the derived INBOX_ADDRESS. It is empty in the sandbox unless one is set.
func (c *Config) FromAddress() string {
	if c.InboxAddress != "" && c.Source("INBOX_ADDRESS").userSet() {
		return c.InboxAddress
	}
	if isAddress(c.SMTPUser) {
		return c.SMTPUser
	}
	return c.InboxAddress
}

// Source reports where the named variable's value came from.
func (c *Config) Source(name string) Source {
	return c.sources[name]
}

// Source says where a variable's value came from.
type Source int

// The sources of a value.
const (
	SourceDefault Source = iota // unset or empty: the default applies
	SourceEnv                   // the process environment
	SourceFile                  // the .env file
	SourceDerived               // computed from other variables
	SourcePreset                // from EMAIL_PROVIDER's preset
)

// String names the source for Fprint.
func (s Source) String() string {
	switch s {
	case SourceEnv:
		return "environment"
	case SourceFile:
		return ".env file"
	case SourceDerived:
		return "derived"
	case SourcePreset:
		return "EMAIL_PROVIDER preset"
	}
	return "default"
}

func (s Source) userSet() bool { return s == SourceEnv || s == SourceFile }

// isAddress reports whether s is a bare email address such as a@b.example.
func isAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}
