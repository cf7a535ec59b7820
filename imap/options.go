package imap

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"strconv"
	"time"
)

// Security is how a connection to the IMAP server is protected.
type Security int

const (
	// SecurityTLS is implicit TLS from the first byte (IMAP_SSL=true, port 993).
	SecurityTLS Security = iota
	// SecurityStartTLS upgrades a plaintext connection with STARTTLS before
	// anything else is sent; a server that does not offer it fails with
	// ErrTLS (IMAP_STARTTLS=true).
	SecurityStartTLS
	// SecurityStartTLSOptional uses STARTTLS when the server offers it and
	// plaintext otherwise (IMAP_STARTTLS=none). It is weaker: an attacker on
	// the path can hide the offer. Once a server has been seen offering
	// STARTTLS, later connections of the same Client require it.
	SecurityStartTLSOptional
	// SecurityPlain sends everything, the password included, in clear text
	// (IMAP_STARTTLS=false). The configuration allows it only to loopback
	// hosts or with an explicit opt-in.
	SecurityPlain
)

// String returns the mode's name: "tls", "starttls", "starttls-optional" or
// "plain".
func (s Security) String() string {
	switch s {
	case SecurityTLS:
		return "tls"
	case SecurityStartTLS:
		return "starttls"
	case SecurityStartTLSOptional:
		return "starttls-optional"
	case SecurityPlain:
		return "plain"
	default:
		return "Security(" + strconv.Itoa(int(s)) + ")"
	}
}

// TokenSource gives OAuth 2.0 access tokens; the oauth package's sources
// implement it. Token is called for every login (a source caches);
// Refused tells it that the server refused token, so that the next Token
// fetches a fresh one.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
	Refused(token string)
}

// Defaults of the zero fields of Options.
const (
	DefaultPoolSize       = 3
	DefaultDialTimeout    = 15 * time.Second
	DefaultCommandTimeout = 30 * time.Second
	DefaultIdleCheck      = 60 * time.Second
	DefaultPollInterval   = 5 * time.Second
	DefaultWatchLinger    = 60 * time.Second
	DefaultWatchRefresh   = 5 * time.Minute
	DefaultWatchQueue     = 256
	// MaxWatchRefresh is the longest WatchRefresh: servers may end an IDLE
	// after 30 minutes (RFC 2177).
	MaxWatchRefresh = 25 * time.Minute
)

// Options configures a Client. Zero fields take the defaults above.
type Options struct {
	Host     string
	Port     int // 0: 993 with SecurityTLS, else 143
	Username string
	Password string
	// Token, when set, signs in with an OAuth 2.0 access token instead of
	// the password: SASL OAUTHBEARER or XOAUTH2, whichever the server
	// offers (OAuthMechanism picks one), under the same TLS rules.
	Token TokenSource
	// OAuthMechanism is "" (choose from the capabilities), "XOAUTH2" or
	// "OAUTHBEARER".
	OAuthMechanism string
	Security       Security
	// AllowPlainLogin lets LOGIN go without TLS to a peer that is not
	// loopback (IMAP_ALLOW_PLAINTEXT): under SecurityPlain, and under
	// SecurityStartTLSOptional when the server offered no STARTTLS (an
	// attacker on the path may have hidden it). Without it the password
	// goes in clear text only to a loopback address.
	AllowPlainLogin bool
	// TLSConfig is cloned before use. Nil means the system roots with
	// ServerName set to Host; an empty ServerName is set to Host too.
	TLSConfig *tls.Config
	// PoolSize is the most connections open at once, those being dialled
	// included (IMAP_POOL_SIZE).
	PoolSize int
	// DialTimeout bounds the TCP connect and the TLS handshake.
	DialTimeout time.Duration
	// CommandTimeout is the deadline of every exchange with the server (the
	// greeting, STARTTLS, login, each operation) when ctx has none shorter.
	CommandTimeout time.Duration
	// IdleCheck: a pooled connection unused for longer gets a NOOP before
	// it is handed out again; one that fails it is replaced.
	IdleCheck time.Duration
	// MaxIdleTime, when positive, closes pooled connections unused for
	// longer instead of reusing them.
	MaxIdleTime time.Duration
	// PollInterval is how often a watcher asks a server without IDLE for
	// news (NOOP).
	PollInterval time.Duration
	// ActivePoll, when positive, makes a watcher that has subscribers check
	// its folder with a NOOP every ActivePoll instead of waiting in IDLE for
	// the server's push; without subscribers it IDLEs. IDLE costs nothing
	// while nothing happens, but a server may delay its news (Dovecot waits
	// 0.5 s after a delivery before it tells an IDLE session): on a cheap
	// link to such a server, a short ActivePoll (25 ms) brings a waiter its
	// mail within that. 0 leaves the push alone.
	ActivePoll time.Duration
	// WatchLinger is how long a watcher without subscribers keeps its
	// connection before it stops.
	WatchLinger time.Duration
	// WatchRefresh is how often a watcher ends its IDLE (or pauses its
	// polling) and EXAMINEs its folder again; a server that does not answer
	// within CommandTimeout is taken for dead (the watcher reconnects). At
	// most MaxWatchRefresh.
	WatchRefresh time.Duration
	// WatchQueue is the most messages a subscription holds that its reader
	// has not received yet; one more closes it with ErrOverflow.
	WatchQueue int
	// Logger receives connection events (never credentials or the wire
	// log). Nil discards them.
	Logger *slog.Logger
}

// withDefaults returns o with its zero fields filled in.
func (o Options) withDefaults() Options {
	if o.Port == 0 {
		o.Port = 143
		if o.Security == SecurityTLS {
			o.Port = 993
		}
	}
	if o.PoolSize <= 0 {
		o.PoolSize = DefaultPoolSize
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = DefaultCommandTimeout
	}
	if o.IdleCheck <= 0 {
		o.IdleCheck = DefaultIdleCheck
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.WatchLinger <= 0 {
		o.WatchLinger = DefaultWatchLinger
	}
	if o.WatchRefresh <= 0 {
		o.WatchRefresh = DefaultWatchRefresh
	}
	o.WatchRefresh = min(o.WatchRefresh, MaxWatchRefresh)
	if o.WatchQueue <= 0 {
		o.WatchQueue = DefaultWatchQueue
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// address is host:port for dialling.
func (o *Options) address() string {
	return net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
}

// tlsConfig returns a fresh TLS configuration for one connection.
func (o *Options) tlsConfig() *tls.Config {
	var cfg *tls.Config
	if o.TLSConfig != nil {
		cfg = o.TLSConfig.Clone()
	} else {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = o.Host
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	return cfg
}
