package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/transport"
	"github.com/email-mcp/email-mcp/web"
)

// runServe is `email-mcp serve`: the HTTP server until SIGINT/SIGTERM.
func runServe(ctx context.Context, cfg *config.Config, stdout, stderr io.Writer) int {
	log := newLogger(cfg, stderr)
	key := cfg.MCPAPIKey.Reveal()
	generated := false
	if key == "" {
		if !cfg.Sandbox() {
			fmt.Fprintln(stderr, "email-mcp: the configuration is not valid:\n  MCP_API_KEY: required to serve HTTP with a real mail account (generate one with: openssl rand -hex 32)")
			return exitConfig
		}
		key, generated = "emcp_"+randomToken(24), true
	}
	a, err := newApp(ctx, cfg, log, sandboxOptions{})
	if err != nil {
		return startupFailed(err, log, stderr)
	}
	defer a.Close()

	h, pages, err := buildHTTP(a, key, log)
	if err != nil {
		log.Error("startup failed", "err", err)
		return exitFailure
	}
	addr := net.JoinHostPort(cfg.MCPHost, strconv.Itoa(cfg.MCPPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("cannot listen", "addr", addr, "err", err)
		return exitFailure
	}
	ln = newLimitListener(ln, cfg.MCPMaxConnections)
	srv := newHTTPServer(h, log)
	base := publicBaseURL(cfg, ln.Addr())
	log.Info("email-mcp listening", "addr", ln.Addr().String(), "url", base+"/mcp", "version", buildVersion(),
		"sandbox", cfg.Sandbox(), "tools", len(a.tools.ToolNames()), "read_only", cfg.MCPReadOnly)
	if cfg.Sandbox() {
		printBanner(stdout, a, base, key, generated, pages.LoginLink(base))
	}
	return serveUntilDone(ctx, srv, ln, h, log, a.endWaits)
}

// endWaits ends the running waits (WAIT_TIMEOUT with next_since); once.
func (a *app) endWaits() {
	select {
	case <-a.stopWaits:
	default:
		close(a.stopWaits)
	}
}

// buildHTTP puts the auth middleware in front of the tools' HTTP endpoints,
// and the web inbox (/ui) behind the same middleware.
func buildHTTP(a *app, key string, log *slog.Logger) (*transport.HTTP, *web.Handler, error) {
	basePath, hosts := "", slices.Clone(a.cfg.MCPAllowedHosts)
	if a.cfg.MCPBaseURL != "" {
		if u, err := url.Parse(a.cfg.MCPBaseURL); err == nil {
			basePath = u.Path
			if _, err := netip.ParseAddr(u.Hostname()); err != nil {
				hosts = append(hosts, u.Hostname()) // IP literals are always allowed
			}
		}
	}
	mw, err := auth.New(auth.Options{
		Keys:           apiKeys(a.cfg, key),
		AllowedOrigins: a.cfg.MCPAllowedOrigins,
		AllowedHosts:   hosts,
		Logger:         log.With("component", "auth"),
	})
	if err != nil {
		return nil, nil, err
	}
	// The page's own origin (MCP_BASE_URL's) is allowed for the page: its
	// forms and fetches carry it, and the Host rule already pins that name.
	pageMW, err := auth.New(auth.Options{
		Keys:           []string{key},
		AllowedOrigins: append(slices.Clone(a.cfg.MCPAllowedOrigins), baseOrigin(a.cfg.MCPBaseURL)...),
		AllowedHosts:   hosts,
		Logger:         log.With("component", "auth"),
	})
	if err != nil {
		return nil, nil, err
	}
	// /docs and /openapi.json are open, as the seed's /docs was: a browser
	// sends no key header. They say which tools are served (toolsets,
	// read-only mode), nothing that needs the key; Host and Origin checks stay.
	public, err := auth.Public(auth.Options{
		AllowedOrigins: a.cfg.MCPAllowedOrigins,
		AllowedHosts:   hosts,
		Logger:         log.With("component", "auth"),
	})
	if err != nil {
		return nil, nil, err
	}
	pages := web.New(web.Options{Tools: a.tools, Auth: pageMW, Key: key, Name: a.cfg.MCPServerName,
		Secure: strings.HasPrefix(a.cfg.MCPBaseURL, "https:"), Logger: log.With("component", "web"), Stop: a.stopWaits})
	h, err := transport.Handler(a.tools.Server, transport.Options{Auth: mw, Public: public, PublicURL: a.cfg.MCPBaseURL, Ready: a.readyChecks(),
		BasePath: basePath, BodyTimeout: bodyTimeout, Admitted: markAuthenticated, Pages: pages})
	return h, pages, err
}

// apiKeys are the keys of the MCP endpoints: key (MCP_API_KEY, or the
// sandbox's generated one) and MCP_API_KEYS. The web inbox takes key only.
func apiKeys(cfg *config.Config, key string) []string {
	keys := []string{key}
	for _, k := range cfg.APIKeys() {
		if k.Key.Reveal() != key {
			keys = append(keys, k.Key.Reveal())
		}
	}
	return keys
}

// baseOrigin is MCP_BASE_URL's origin, when it has one.
func baseOrigin(base string) []string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}

// readHeaderTimeout bounds how long a client may take to send its request
// headers (slow-loris); a variable so that a test can shorten it.
var readHeaderTimeout = 10 * time.Second

// bodyTimeout bounds how long a request body may take once the headers are
// in (plus time for its size at transport's minimum rate); a variable so that a
// test can shorten it.
var bodyTimeout = 10 * time.Second

// newHTTPServer sets the timeouts: headers must arrive quickly (slow-loris),
// bodies too (transport.Options.BodyTimeout, per request: ReadTimeout would
// cancel long waits), idle keep-alive connections are closed, and there is
// no WriteTimeout, which would cut SSE streams and long waits. ConnState and
// ConnContext tell the connection limit which connections are idle and which
// have authenticated.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ConnState:         trackConnState,
		ConnContext:       withConn,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// serveUntilDone serves until ctx ends, then drains: streams are closed,
// in-flight calls get shutdownTimeout to finish. endWaits runs first: a
// wait would otherwise hold the drain to its deadline and then be cut
// (CANCELLED, nothing to continue from); it answers WAIT_TIMEOUT with
// next_since at once instead.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, h *transport.HTTP, log *slog.Logger, endWaits func()) int {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		log.Error("http server stopped", "err", err)
		return exitFailure
	case <-ctx.Done():
	}
	log.Info("shutting down")
	endWaits()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// The server stops taking requests first; running calls finish (those
	// of SSE sessions answer on their streams, which h.Shutdown then ends).
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(sctx) }()
	h.Shutdown(sctx)
	if err := <-shut; err != nil {
		log.Warn("shutdown timed out; closing connections", "err", err)
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("http server", "err", err)
	}
	log.Info("stopped")
	return exitOK
}

// publicBaseURL is MCP_BASE_URL, or the address we listen on.
func publicBaseURL(cfg *config.Config, addr net.Addr) string {
	if cfg.MCPBaseURL != "" {
		return trimSlash(cfg.MCPBaseURL)
	}
	host, port, _ := net.SplitHostPort(addr.String())
	if host == "127.0.0.1" || host == "::1" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// limiterClock is the clock of the per-key call limit; a variable so that a
// test can freeze it and count exactly.
var limiterClock = time.Now

// callLimit is RATE_LIMIT_PER_MINUTE as tools.Options.CallLimit: tool calls
// per API key. A call without a key id (stdio, where no key exists) is not
// limited.
func callLimit(perMinute int) func(context.Context) time.Duration {
	l := auth.NewLimiter(auth.LimiterOptions{PerMinute: perMinute, Now: limiterClock})
	if l == nil {
		return nil
	}
	return func(ctx context.Context) time.Duration {
		id, ok := auth.KeyID(ctx)
		if !ok {
			return 0
		}
		return l.Take(id)
	}
}

// callerID is the id of the API key that authenticated the request.
func callerID(ctx context.Context) string {
	id, _ := auth.KeyID(ctx)
	return id
}
