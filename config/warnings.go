package config

import (
	"net"

	"github.com/email-mcp/email-mcp/internal/netaddr"
)

// minKeyLength is the API key length below which Warnings complains.
const minKeyLength = 16

// Warnings lists settings that work but weaken security or look like
// mistakes, one sentence each, naming the variable; cmd logs them at warn
// level. None of them holds a secret.
func (c *Config) Warnings() []string {
	var w []string
	w = append(w, c.tlsWarnings()...)
	w = append(w, c.portWarnings()...)
	w = append(w, c.sandboxWarnings()...)
	if n := len(c.MCPAPIKey.Reveal()); n > 0 && n < minKeyLength {
		w = append(w, "MCP_API_KEY is shorter than 16 characters: use a long random key")
	}
	if !c.Sandbox() && c.HasToolset(ToolsetInbox) && c.InboxAddress == "" {
		w = append(w, "INBOX_ADDRESS is empty and IMAP_USER is not an email address: "+
			"create_inbox cannot make addresses (set INBOX_ADDRESS, or MCP_TOOLSETS=mail)")
	}
	w = append(w, c.oauthWarnings()...)
	for _, k := range c.fileKeys {
		w = append(w, k+" in the .env file is not an email-mcp variable and is ignored")
	}
	return w
}

// tlsWarnings covers skip-verify, opportunistic STARTTLS and allowed plain text.
func (c *Config) tlsWarnings() []string {
	var w []string
	if c.IMAPTLSSkipVerify {
		w = append(w, "IMAP_TLS_SKIP_VERIFY=true: the IMAP server certificate is not verified; "+
			"anyone on the network path can read the password")
	}
	if c.SMTPTLSSkipVerify {
		w = append(w, "SMTP_TLS_SKIP_VERIFY=true: the SMTP server certificate is not verified; "+
			"anyone on the network path can read the password")
	}
	if c.Sandbox() {
		return w
	}
	if !c.IMAPSSL && c.IMAPStartTLS == StartTLSOpportunistic {
		w = append(w, "IMAP_STARTTLS=none: TLS is used only when the server offers it, "+
			"so an attacker can strip it (weaker than true)")
	}
	if c.SMTPHost != "" && !c.SMTPSSL && c.SMTPStartTLS == StartTLSOpportunistic {
		w = append(w, "SMTP_STARTTLS=none: TLS is used only when the server offers it, "+
			"so an attacker can strip it (weaker than true)")
	}
	if c.imapPlaintext() && !netaddr.IsLoopback(c.IMAPHost) {
		w = append(w, "IMAP_ALLOW_PLAINTEXT=true: the IMAP password is sent in plain text to "+c.IMAPHost)
	}
	if c.smtpPlaintext() && !netaddr.IsLoopback(c.SMTPHost) {
		w = append(w, "SMTP_ALLOW_PLAINTEXT=true: the SMTP password is sent in plain text to "+c.SMTPHost)
	}
	return w
}

// portWarnings flags TLS settings that do not match the well-known ports.
func (c *Config) portWarnings() []string {
	if c.Sandbox() {
		return nil
	}
	var w []string
	if c.IMAPSSL && c.IMAPPort == 143 {
		w = append(w, "IMAP_SSL=true with IMAP_PORT=143: port 143 usually speaks STARTTLS (set IMAP_SSL=false)")
	}
	if !c.IMAPSSL && c.IMAPPort == 993 {
		w = append(w, "IMAP_SSL=false with IMAP_PORT=993: port 993 usually speaks implicit TLS (set IMAP_SSL=true)")
	}
	if c.SMTPHost != "" && c.SMTPSSL && c.SMTPPort == 587 {
		w = append(w, "SMTP_SSL=true with SMTP_PORT=587: port 587 usually speaks STARTTLS (set SMTP_SSL=false)")
	}
	if c.SMTPHost != "" && !c.SMTPSSL && c.SMTPPort == 465 {
		w = append(w, "SMTP_SSL=false with SMTP_PORT=465: port 465 usually speaks implicit TLS (set SMTP_SSL=true)")
	}
	return w
}

// sandboxWarnings covers settings that the sandbox ignores or exposes.
func (c *Config) sandboxWarnings() []string {
	if !c.Sandbox() {
		return nil
	}
	var w []string
	if c.SMTPHost != "" {
		w = append(w, "SMTP_HOST is set but IMAP_HOST is empty: the embedded sandbox is used and SMTP_HOST is ignored")
	}
	for _, a := range []struct{ name, addr string }{
		{"DEV_SMTP_ADDR", c.DevSMTPAddr}, {"DEV_IMAP_ADDR", c.DevIMAPAddr},
	} {
		if h, _, err := net.SplitHostPort(a.addr); err == nil && !netaddr.IsLoopback(h) {
			w = append(w, a.name+" is not a loopback address: the sandbox is reachable from the network")
		}
	}
	return w
}

// oauthWarnings flags password variables that OAuth sign-in ignores.
func (c *Config) oauthWarnings() []string {
	if c.Sandbox() || !c.OAuth() {
		return nil
	}
	var w []string
	if c.IMAPPassword.IsSet() || c.SMTPPassword.IsSet() {
		w = append(w, "EMAIL_AUTH=oauth2: IMAP_PASSWORD and SMTP_PASSWORD are ignored (sign-in uses the OAuth token)")
	}
	return w
}
