package config

import (
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/email-mcp/email-mcp/internal/netaddr"
)

// resolve fills the derived defaults: IMAP_PORT 143 when IMAP_SSL=false (993
// is implicit TLS), SMTP_SSL from the port, the SMTP login
// from the IMAP one, INBOX_ADDRESS from IMAP_USER, and absolute folders.
func (ld *loader) resolve(c *Config) {
	ld.applyPreset(c)
	ld.resolveAuth(c)
	if !ld.userSet("IMAP_PORT") && !c.IMAPSSL {
		c.IMAPPort = 143
		ld.sources["IMAP_PORT"] = SourceDerived
	}
	if !ld.userSet("SMTP_SSL") {
		c.SMTPSSL = c.SMTPPort == 465
		ld.sources["SMTP_SSL"] = SourceDerived
	}
	if !ld.userSet("SMTP_USER") && c.IMAPUser != "" {
		c.SMTPUser = c.IMAPUser
		ld.sources["SMTP_USER"] = SourceDerived
	}
	if !ld.userSet("SMTP_PASSWORD") && c.IMAPPassword.IsSet() && !c.OAuth() {
		c.SMTPPassword = c.IMAPPassword
		ld.sources["SMTP_PASSWORD"] = SourceDerived
	}
	if !ld.userSet("INBOX_ADDRESS") && isAddress(c.IMAPUser) {
		c.InboxAddress = c.IMAPUser
		ld.sources["INBOX_ADDRESS"] = SourceDerived
	}
	if !ld.userSet("WAIT_POLL_MS") && !c.Sandbox() && netaddr.IsLoopback(c.IMAPHost) {
		// A server on this machine: checking every 25 ms while someone waits
		// costs little and beats servers that delay IDLE news (Dovecot 0.5 s).
		c.WaitPollMS = 25
		ld.sources["WAIT_POLL_MS"] = SourceDerived
	}
	ld.absolute("EMAIL_BASE_DIR", &c.EmailBaseDir)
	ld.absolute("EMAIL_DATA_DIR", &c.EmailDataDir)
}

// absolute makes a non-empty folder path absolute.
func (ld *loader) absolute(name string, dir *string) {
	if *dir == "" || !ld.ok(name) {
		return
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		ld.fail(name, *dir, "cannot be made absolute: "+err.Error())
		return
	}
	*dir = abs
}

// validate checks values and the rules between variables.
func (ld *loader) validate(c *Config) {
	ld.host("IMAP_HOST", "IMAP_PORT", &c.IMAPHost)
	ld.host("SMTP_HOST", "SMTP_PORT", &c.SMTPHost)
	ld.host("MCP_HOST", "MCP_PORT", &c.MCPHost)
	ld.hostPort("DEV_SMTP_ADDR", c.DevSMTPAddr)
	ld.hostPort("DEV_IMAP_ADDR", c.DevIMAPAddr)
	ld.baseURL(&c.MCPBaseURL)
	ld.origins(c.MCPAllowedOrigins)
	ld.allowedHosts(c.MCPAllowedHosts)
	ld.recipients(c.SendAllowedRecipients)
	ld.toolsets(&c.MCPToolsets)
	ld.apiKey(c.MCPAPIKey)
	ld.caFile(c.TLSCAFile)
	if ld.userSet("INBOX_ADDRESS") && !isAddress(c.InboxAddress) {
		ld.fail("INBOX_ADDRESS", c.InboxAddress, "must be an email address such as agent@example.com")
	}
	ld.account(c)
	ld.validateOAuth(c)
	ld.plaintext(c)
}

// host checks a host name or IP address and strips IPv6 brackets.
func (ld *loader) host(name, portName string, h *string) {
	if *h == "" || !ld.ok(name) {
		return
	}
	if reason := hostReason(*h, portName); reason != "" {
		ld.fail(name, *h, reason)
		return
	}
	*h = strings.TrimSuffix(strings.TrimPrefix(*h, "["), "]")
}

// hostReason says what is wrong with a host, or "" when it is fine.
func hostReason(h, portName string) string {
	if strings.Contains(h, "://") {
		return "must be a host name without a scheme such as imaps://"
	}
	bare := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if _, err := netip.ParseAddr(bare); err == nil {
		return ""
	}
	if strings.Contains(h, ":") {
		return "must be a host name or IP address without a port (set " + portName + ")"
	}
	if !validHostName(h) {
		return "must be a host name or IP address"
	}
	return ""
}

// validHostName accepts letters, digits, '-', '_' and dots, 1 to 253 bytes.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, r := range h {
		ok := r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// hostPort checks a listen address such as 127.0.0.1:2525 (port 0 allowed).
func (ld *loader) hostPort(name, addr string) {
	if addr == "" || !ld.ok(name) {
		return
	}
	const reason = "must be host:port, such as 127.0.0.1:2525"
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		ld.fail(name, addr, reason)
		return
	}
	if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		ld.fail(name, addr, "must have a port from 0 to 65535")
		return
	}
	if h != "" && hostReason(h, name) != "" {
		ld.fail(name, addr, reason)
	}
}

// baseURL checks MCP_BASE_URL and drops a trailing slash.
func (ld *loader) baseURL(s *string) {
	const name = "MCP_BASE_URL"
	if *s == "" || !ld.ok(name) {
		return
	}
	u, err := url.Parse(*s)
	switch {
	case err != nil || u.Opaque != "" || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		ld.fail(name, redactURL(*s), "must be an absolute http or https URL, such as https://mail.example.com")
	case u.User != nil:
		ld.fail(name, "", "must not contain a user name or password")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		ld.fail(name, *s, "must not have a query or fragment")
	default:
		*s = strings.TrimRight(*s, "/")
	}
}

// redactURL hides a userinfo part of a URL that failed to parse.
func redactURL(s string) string {
	if strings.Contains(s, "@") {
		return ""
	}
	return s
}

// origins checks each MCP_ALLOWED_ORIGINS item and normalises its case.
func (ld *loader) origins(list []string) {
	const name = "MCP_ALLOWED_ORIGINS"
	for i, o := range list {
		norm, ok := normalizeOrigin(o)
		if !ok {
			ld.fail(name, redactURL(o), "each origin must be scheme://host[:port], such as https://app.example.com")
			continue
		}
		list[i] = norm
	}
}

// normalizeOrigin returns scheme://host[:port] in lower case.
func normalizeOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	if hostReason(u.Hostname(), "") != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// toolsets checks MCP_TOOLSETS: mail and/or inbox, at least one.
func (ld *loader) toolsets(list *[]string) {
	const name = "MCP_TOOLSETS"
	if !ld.ok(name) {
		return
	}
	if len(*list) == 0 {
		ld.fail(name, "", "must name at least one toolset: mail, inbox")
		return
	}
	for _, t := range *list {
		if l := lower(t); l != ToolsetMail && l != ToolsetInbox {
			ld.fail(name, t, "each toolset must be mail or inbox")
		}
	}
	*list = splitList(lower(strings.Join(*list, ",")))
}

// apiKey checks that MCP_API_KEY can travel in an HTTP header unchanged.
func (ld *loader) apiKey(key Secret) {
	for _, b := range []byte(key.Reveal()) {
		if b <= ' ' || b >= 0x7f {
			ld.fail("MCP_API_KEY", "", "must be printable ASCII without spaces (it is sent in an HTTP header)")
			return
		}
	}
}

// caFile checks that TLS_CA_FILE holds at least one PEM certificate.
func (ld *loader) caFile(path string) {
	if path == "" || !ld.ok("TLS_CA_FILE") {
		return
	}
	if _, err := readCAFile(path); err != nil {
		ld.fail("TLS_CA_FILE", path, caReason(err))
	}
}

// account checks what a real account (IMAP_HOST set) needs.
func (ld *loader) account(c *Config) {
	if c.Sandbox() {
		return
	}
	if c.IMAPUser == "" {
		ld.fail("IMAP_USER", "", "required when IMAP_HOST is set")
	}
	if !c.IMAPPassword.IsSet() && !c.OAuth() {
		ld.fail("IMAP_PASSWORD", "", "required when IMAP_HOST is set (or sign in with OAuth: EMAIL_AUTH=oauth2)")
	}
	if c.SMTPHost == "" && !c.MCPReadOnly {
		ld.fail("SMTP_HOST", "", "required when IMAP_HOST is set, unless MCP_READ_ONLY=true")
	}
}

// plaintext refuses plain-text logins to hosts that are not loopback unless
// IMAP_ALLOW_PLAINTEXT / SMTP_ALLOW_PLAINTEXT says so.
func (ld *loader) plaintext(c *Config) {
	if c.Sandbox() {
		return
	}
	if c.imapPlaintext() && !netaddr.IsLoopback(c.IMAPHost) && !c.IMAPAllowPlaintext {
		ld.fail("IMAP_STARTTLS", string(c.IMAPStartTLS), plaintextReason("IMAP"))
	}
	if c.smtpPlaintext() && !netaddr.IsLoopback(c.SMTPHost) && !c.SMTPAllowPlaintext {
		ld.fail("SMTP_STARTTLS", string(c.SMTPStartTLS), plaintextReason("SMTP"))
	}
}

func plaintextReason(proto string) string {
	return "with " + proto + "_SSL=false this sends the password in plain text to a host that is not loopback; " +
		"use " + proto + "_STARTTLS=true, or set " + proto + "_ALLOW_PLAINTEXT=true to accept the risk"
}

// imapPlaintext reports whether IMAP is configured without any TLS.
func (c *Config) imapPlaintext() bool {
	return !c.IMAPSSL && c.IMAPStartTLS == StartTLSDisabled
}

// smtpPlaintext reports whether SMTP is configured without any TLS.
func (c *Config) smtpPlaintext() bool {
	return c.SMTPHost != "" && !c.SMTPSSL && c.SMTPStartTLS == StartTLSDisabled
}

// allowedHosts checks MCP_ALLOWED_HOSTS: host names, *.domain or *.
func (ld *loader) allowedHosts(list []string) {
	const name = "MCP_ALLOWED_HOSTS"
	for i, h := range list {
		// The trailing dot of a fully qualified name goes after the check:
		// "*." is no "*" (which turns the Host check off), "." no name.
		l := lower(h)
		if l != "*" && !validHostName(strings.TrimSuffix(strings.TrimPrefix(l, "*."), ".")) {
			ld.fail(name, h, "each entry must be a host name without port (mcp.example.com), *.example.com or *")
			continue
		}
		list[i] = strings.TrimSuffix(l, ".")
	}
}

// recipients checks SEND_ALLOWED_RECIPIENTS: addresses, domains (with or
// without a leading @) and *.domain; entries are kept in lower case.
func (ld *loader) recipients(list []string) {
	const name = "SEND_ALLOWED_RECIPIENTS"
	for i, r := range list {
		l := lower(r)
		var ok bool
		switch local, domain, found := strings.Cut(l, "@"); {
		case found && local == "":
			l, ok = domain, validHostName(domain) && strings.Contains(domain, ".")
		case found:
			ok = isAddress(l)
		default:
			ok = validHostName(strings.TrimPrefix(l, "*.")) && strings.Contains(l, ".")
		}
		if !ok {
			ld.fail(name, r, "each entry must be an address (a@b.example), a domain (b.example or @b.example) or *.b.example")
			continue
		}
		list[i] = l
	}
}
