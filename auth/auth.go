// Package auth is the HTTP middleware in front of the keyed endpoints of
// email-mcp: the API key check and the Origin check (MCP's guidance against
// DNS rebinding).
//
//	mw, err := auth.New(auth.Options{Keys: []string{key}, AllowedOrigins: origins, Logger: logger})
//	mux.Handle("/mcp", mw(mcpHandler))
//
// For each request, in this order:
//
//  1. A key in the query string (api_key, apikey, key, token, access_token)
//     is refused with 400: URLs end up in logs and browser history. The URL is
//     never logged.
//  2. The Host header (DNS-rebinding protection): an IP literal, localhost,
//     or a name in AllowedHosts ("*.example.com" covers subdomains, "*" turns
//     the check off); anything else is refused with 403.
//  3. The Origin header: absent is fine (non-browser clients); an origin in
//     AllowedOrigins (exact, scheme and host case-insensitive) or an http(s)
//     origin on a loopback host (localhost, 127.0.0.0/8, [::1]) is fine;
//     anything else, "null" included, is refused with 403. An origin that
//     merely matches the request's Host is NOT allowed: that is exactly what a
//     DNS-rebinding page looks like.
//  4. The key, from "X-API-Key: K" or else "Authorization: Bearer K" (scheme
//     case-insensitive, surrounding spaces ignored). X-API-Key wins when both
//     are sent. It is compared in constant time with every configured key
//     (SHA-256 digests, so the length does not leak either). A missing and a
//     wrong key get the same 401 answer.
//
// A request that passes reaches the next handler with the key's id in its
// context ([KeyID]) and without the X-API-Key and Authorization headers, so
// nothing downstream can log or echo the key.
//
// Browsers: a CORS preflight (OPTIONS with Access-Control-Request-Method)
// from an allowed origin is answered here with 204, without a key, because
// browsers never send credentials on a preflight; responses to allowed
// cross-origin requests carry Access-Control-Allow-Origin. Do not also turn
// on the CORS options of mcp-go for the same routes.
package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

// Errors of New.
var (
	ErrNoKeys     = errors.New("auth: at least one API key is required")
	ErrInvalidKey = errors.New("auth: an API key must be printable ASCII without spaces")
	ErrBadOrigin  = errors.New("auth: an allowed origin must be scheme://host[:port]")
)

// Options configures New.
type Options struct {
	// Keys are the accepted API keys; at least one.
	Keys []string
	// AllowedOrigins are the browser origins allowed besides loopback ones,
	// such as https://app.example.com.
	AllowedOrigins []string
	// AllowedHosts are the Host header names accepted besides IP literals
	// and localhost: the public name of the server (MCP_BASE_URL's host) and
	// MCP_ALLOWED_HOSTS. "*.example.com" matches subdomains; "*" accepts any.
	AllowedHosts []string
	// Logger receives one line per refused request; nil discards them.
	Logger *slog.Logger
}

// New returns the middleware, or an error when Options are unusable.
func New(opts Options) (func(http.Handler) http.Handler, error) {
	if len(opts.Keys) == 0 {
		return nil, ErrNoKeys
	}
	g, err := newGuard(opts)
	if err != nil {
		return nil, err
	}
	for i, k := range opts.Keys {
		if !validKey(k) {
			return nil, fmt.Errorf("key %d: %w", i+1, ErrInvalidKey)
		}
		g.keys = append(g.keys, sha256.Sum256([]byte(k)))
		g.ids = append(g.ids, IDOf(k))
	}
	return g.wrap, nil
}

// newGuard prepares the Host and Origin rules of opts (not its keys).
func newGuard(opts Options) (*guard, error) {
	hosts, err := newHostRule(opts.AllowedHosts)
	if err != nil {
		return nil, err
	}
	g := &guard{logger: opts.Logger, origins: map[string]bool{}, hosts: hosts}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	for _, o := range opts.AllowedOrigins {
		norm, ok := parseOrigin(o)
		if !ok {
			return nil, fmt.Errorf("%q: %w", o, ErrBadOrigin)
		}
		g.origins[norm] = true
	}
	return g, nil
}

// validKey reports whether k is non-empty printable ASCII without spaces:
// anything else could not arrive unchanged in an HTTP header.
func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] >= 0x7f {
			return false
		}
	}
	return true
}

// guard holds the prepared options of one middleware.
type guard struct {
	keys    [][sha256.Size]byte // digests of the accepted keys
	ids     []string            // KeyID of each key, same order
	origins map[string]bool     // normalised AllowedOrigins
	hosts   hostRule            // AllowedHosts
	logger  *slog.Logger
	public  bool // Public: no key is asked for
}

// wrap is the middleware.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if param := keyInQuery(r); param != "" {
			g.refuse(w, r, keyInQueryRefusal, slog.LevelWarn, "api key in query string", slog.String("param", param))
			return
		}
		if !g.hosts.allows(r) {
			g.refuse(w, r, forbiddenHost, slog.LevelWarn, "host not allowed", slog.String("host", clip(r.Host)))
			return
		}
		origin, ok := g.checkOrigin(r)
		if !ok {
			g.refuse(w, r, forbiddenOrigin, slog.LevelWarn, "origin not allowed", slog.String("origin", clip(origin)))
			return
		}
		if origin != "" {
			allowCORS(w, origin)
			if isPreflight(r) {
				preflight(w)
				return
			}
		}
		if g.public {
			next.ServeHTTP(w, withoutKeyHeaders(r))
			return
		}
		id, reason := g.checkKey(r)
		if reason != "" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			g.refuse(w, r, unauthorized, slog.LevelInfo, reason)
			return
		}
		next.ServeHTTP(w, withoutKey(r, id))
	})
}

// withoutKey returns a copy of r with the key id in its context and without
// the headers that carried the key.
func withoutKey(r *http.Request, id string) *http.Request {
	r2 := r.WithContext(context.WithValue(r.Context(), keyIDKey{}, id))
	r2.Header = r.Header.Clone()
	r2.Header.Del("X-API-Key")
	r2.Header.Del("Authorization")
	return r2
}

// keyIDKey is the context key of the key id.
type keyIDKey struct{}

// KeyID returns the id of the API key that authenticated the request (see
// IDOf), for rate limiting and session binding. It is not a secret.
func KeyID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(keyIDKey{}).(string)
	return id, ok
}
