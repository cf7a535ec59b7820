package smtp

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"strconv"
	"time"
)

// Security is how a Sender protects the connection.
type Security int

const (
	// SecurityTLS is implicit TLS from the first byte (SMTP_SSL, port 465).
	SecurityTLS Security = iota
	// SecurityStartTLS upgrades with STARTTLS and refuses to go on (ErrTLS)
	// when the server does not offer it (SMTP_STARTTLS=true, port 587).
	SecurityStartTLS
	// SecurityStartTLSOptional uses STARTTLS when the server offers it and
	// plaintext otherwise (SMTP_STARTTLS=none). It is weaker: an attacker on
	// the path can strip the offer. Credentials still never go over
	// plaintext to a non-loopback host unless Options.AllowPlainAuth.
	SecurityStartTLSOptional
	// SecurityPlain never starts TLS (SMTP_STARTTLS=false).
	SecurityPlain
)

// String names the mode as `email-mcp check` prints it.
func (s Security) String() string {
	switch s {
	case SecurityTLS:
		return "implicit TLS"
	case SecurityStartTLS:
		return "STARTTLS required"
	case SecurityStartTLSOptional:
		return "STARTTLS when offered"
	case SecurityPlain:
		return "plaintext"
	}
	return "Security(" + strconv.Itoa(int(s)) + ")"
}

// TokenSource gives OAuth 2.0 access tokens; the oauth package's sources
// implement it. Refused tells it that the server refused token, so that
// the next Token fetches a fresh one.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
	Refused(token string)
}

// Defaults for the zero values of Options.
const (
	DefaultDialTimeout       = 15 * time.Second
	DefaultCommandTimeout    = time.Minute
	DefaultSubmissionTimeout = 5 * time.Minute
	DefaultLocalName         = "localhost"
)

// Options configure a Sender. The zero value of a field means its default.
type Options struct {
	Host string
	// Port defaults to 465 with SecurityTLS and 587 otherwise.
	Port int
	// Username and Password enable AUTH (PLAIN, or LOGIN when the server
	// offers only LOGIN). With an empty Username no AUTH is attempted.
	Username, Password string
	// Token, when set, authenticates with an OAuth 2.0 access token
	// instead of the password: AUTH OAUTHBEARER or XOAUTH2, whichever the
	// server offers (OAuthMechanism picks one), under the same TLS rules.
	Token TokenSource
	// OAuthMechanism is "" (choose from the EHLO answer), "XOAUTH2" or
	// "OAUTHBEARER".
	OAuthMechanism string

	Security Security
	// TLSConfig verifies the server; nil means the system roots. Its
	// ServerName defaults to Host.
	TLSConfig *tls.Config
	// AllowPlainAuth permits AUTH over a plaintext connection to a host that
	// is not loopback. Never by default; loopback is always allowed.
	AllowPlainAuth bool
	// LocalName is the EHLO name, default "localhost". (The EHLO before a
	// STARTTLS always says "localhost": go-smtp does not let us choose.)
	LocalName string

	// DialTimeout bounds the TCP connect.
	DialTimeout time.Duration
	// CommandTimeout bounds each command's answer, the whole session setup
	// (greeting, EHLO, STARTTLS, TLS handshake, EHLO) together, and any
	// stall while the message is written (a slow but moving upload is fine).
	CommandTimeout time.Duration
	// SubmissionTimeout bounds the final dot and the answer to it.
	SubmissionTimeout time.Duration

	// Logger gets debug lines about connections and a warning when
	// SecurityStartTLSOptional falls back to plaintext. nil discards.
	Logger *slog.Logger
}

// Sender submits mail to one SMTP server. Each Send, Check and Diagnose uses
// a fresh connection, so a Sender is safe for concurrent use.
type Sender struct {
	opts Options
	addr string
	tls  *tls.Config
	log  *slog.Logger
}

// New returns a Sender for opts. It does no I/O.
func New(opts Options) *Sender {
	if opts.Port == 0 {
		opts.Port = 587
		if opts.Security == SecurityTLS {
			opts.Port = 465
		}
	}
	if opts.LocalName == "" {
		opts.LocalName = DefaultLocalName
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = DefaultCommandTimeout
	}
	if opts.SubmissionTimeout <= 0 {
		opts.SubmissionTimeout = DefaultSubmissionTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sender{
		opts: opts,
		addr: net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)),
		tls:  clientTLS(opts.TLSConfig, opts.Host),
		log:  log,
	}
}

// clientTLS copies cfg (or makes one) with ServerName set to host when empty
// and at least TLS 1.2.
func clientTLS(cfg *tls.Config, host string) *tls.Config {
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg = cfg.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	return cfg
}
