// Package transport brings MCP calls to the tools: Streamable HTTP on /mcp
// (stateless), the legacy HTTP+SSE transport (/sse and /message), the seed's
// REST endpoints (/mcp/tools, /mcp/call), /health and /ready, the API
// documentation (/openapi.json, /docs), and stdio. The auth middleware
// stands in front of every HTTP endpoint but /health, /ready and, when
// Options.Public is set, the documentation.
//
// Request bodies are bounded in size and in time (body.go), and a successful
// result on /mcp is written from the bytes the tools encoded once (splice.go,
// through mcpkit.Server's result hook). Shutdown drains the running calls
// before it ends the SSE streams.
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// Options configure the HTTP face of the server.
type Options struct {
	// Auth wraps every endpoint except /health and /ready (the API key and
	// Origin checks). Required: Handler refuses to build without it.
	Auth func(http.Handler) http.Handler
	// Ready lists the checks /ready runs (IMAP NOOP, SMTP EHLO).
	Ready []ReadyCheck
	// MaxBodyBytes bounds request bodies (413 beyond it); default 4 MiB.
	MaxBodyBytes int64
	// BodyTimeout is how long a request body may take to arrive once the
	// headers are in, plus the time its size needs at MinBodyRate; default
	// 10 s. It bounds reading the request only: the response (an SSE
	// stream, a wait's progress) may take as long as it needs.
	BodyTimeout time.Duration
	// MinBodyRate is the slowest a body may arrive, in bytes a second, past
	// BodyTimeout; default 32 KiB/s.
	MinBodyRate int64
	// Admitted, when set, is called with each request that passed Auth and
	// whose body is in, before it is handled: the connection limit keeps
	// such connections over those that have not proved they hold a key.
	Admitted func(*http.Request)
	// BasePath is the path prefix under which a reverse proxy publishes the
	// server (from MCP_BASE_URL); the SSE endpoint event uses it.
	BasePath string
	// Pages, when set, is the web inbox: served at /ui and under /ui/
	// outside Auth (it signs people in with a session cookie and applies
	// Auth itself), and GET / redirects to it.
	Pages http.Handler
	// Public wraps the API documentation, /docs and /openapi.json: the Host
	// and Origin checks without the key (auth.Public). Nil puts them behind
	// Auth with the other endpoints.
	Public func(http.Handler) http.Handler
	// PublicURL (MCP_BASE_URL) is the server's URL in the documentation's
	// examples; empty: the URL each request came to.
	PublicURL string
}

// ReadyCheck is one dependency /ready checks.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// HTTP is the HTTP handler with its transports, ready to be shut down.
type HTTP struct {
	http.Handler
	streamable *server.StreamableHTTPServer
	sse        sseServer
	calls      *mcpkit.Server // WaitIdle: the tool calls still running
}

// sseFlush is how long Shutdown leaves the SSE streams open after the last
// tool call returned: mcp-go queues the answer on the session's stream right
// after the handler returns, and its stream loop writes it.
const sseFlush = 100 * time.Millisecond

// Shutdown ends the long-lived SSE streams so that http.Server.Shutdown can
// finish, once the tool calls still running have returned (or ctx ends):
// a legacy SSE call answers on its session's stream, and closing the stream
// first dropped that answer. Call it after http.Server.Shutdown has started
// (no new requests come in).
func (h *HTTP) Shutdown(ctx context.Context) {
	// A call answered 202 just before may not have reached its handler yet
	// (mcp-go starts it on a goroutine): give it sseFlush to be counted.
	pause(ctx, sseFlush)
	if busy, ok := h.calls.WaitIdle(ctx); busy && ok {
		pause(ctx, sseFlush)
	}
	h.sse.CloseSessions()
	h.streamable.CloseSessions(ctx)
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

const (
	defaultMaxBody     = 4 << 20
	defaultBodyTimeout = 10 * time.Second
	defaultMinBodyRate = 32 << 10
)

// Handler builds the HTTP endpoints of DESIGN.md: /mcp (Streamable HTTP,
// stateless: no session is kept, so any replica can answer any request),
// /sse + /message (legacy HTTP+SSE, stateful by nature), /mcp/tools and
// /mcp/call (the seed's REST shape), /health and /ready, and the API
// documentation /docs and /openapi.json (docs.go, openapi.go).
// It registers the splice as ts's result hook.
func Handler(ts *mcpkit.Server, opts Options) (*HTTP, error) {
	if opts.Auth == nil {
		return nil, errors.New("transport: Options.Auth is required")
	}
	opts = opts.withDefaults()
	s := &endpoints{ts: ts, log: ts.Logger()}
	ts.SetResultHook(placeholderResult)
	h := &HTTP{streamable: newStreamable(ts), sse: newSSE(ts, opts.BasePath), calls: ts}
	root := s.publicMux(opts)
	pace := bodyPace{timeout: opts.BodyTimeout, rate: opts.MinBodyRate}
	root.Handle("/", opts.Auth(limitBody(opts.MaxBodyBytes, pace, admitted(opts.Admitted, s.apiMux(h)))))
	h.Handler = bodyDeadline(pace, root)
	return h, nil
}

// withDefaults fills the limits left at zero.
func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultMaxBody
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = defaultBodyTimeout
	}
	if o.MinBodyRate <= 0 {
		o.MinBodyRate = defaultMinBodyRate
	}
	return o
}

// newStreamable is /mcp's mcp-go transport: stateless, no GET stream.
func newStreamable(ts *mcpkit.Server) *server.StreamableHTTPServer {
	return server.NewStreamableHTTPServer(ts.MCP(),
		server.WithEndpointPath("/mcp"),
		server.WithStateLess(true),
		server.WithHeartbeatInterval(25*time.Second),
		server.WithStreamableHTTPLogger(ts.Logger()),
		// The Host check (DNS rebinding) is Auth's, for every endpoint, with
		// the operator's MCP_ALLOWED_HOSTS; mcp-go's own would refuse a
		// reverse proxy on loopback that keeps the public Host.
		server.WithDisableLocalhostProtection(true),
		// No standalone GET stream: stateless, mcp-go files every GET
		// stream under the session id "", and each POST's ephemeral session
		// then shared its notification channel, so one client's stream
		// received another's progress. Nothing is sent unprompted here
		// (no list_changed, no sampling); GET /mcp answers 405, as the
		// transport allows (handled in apiMux, before mcp-go logs it).
		server.WithDisableStreaming(true),
	)
}

// sseServer is the legacy SSE transport with its sessions' owners.
type sseServer struct {
	*server.SSEServer
	owners *sseOwners
}

// newSSE is the legacy SSE transport, its sessions bound to their caller.
func newSSE(ts *mcpkit.Server, basePath string) sseServer {
	owners := &sseOwners{caller: ts.CallerID, owner: map[string]string{}}
	sseOpts := []server.SSEOption{
		server.WithSessionIDGenerator(owners.newID),
		server.WithSSEEndpoint("/sse"),
		server.WithMessageEndpoint("/message"),
		server.WithKeepAliveInterval(15 * time.Second),
		server.WithSSEDisableLocalhostProtection(true), // the Host check is Auth's, as above
	}
	if p := strings.TrimRight(basePath, "/"); p != "" {
		sseOpts = append(sseOpts, server.WithStaticBasePath(p))
	}
	return sseServer{SSEServer: server.NewSSEServer(ts.MCP(), sseOpts...), owners: owners}
}

// apiMux routes the endpoints behind Auth: the MCP transports and REST.
func (s *endpoints) apiMux(h *HTTP) *http.ServeMux {
	api := http.NewServeMux()
	api.Handle("/mcp", dropCancellations(spliceResults(h.streamable), s.log))
	api.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "POST, DELETE")
		writeJSON(w, http.StatusMethodNotAllowed, errBody("METHOD_NOT_ALLOWED", "this server is stateless: it offers no GET stream on /mcp; POST requests"))
	})
	api.Handle("GET /sse", h.sse.owners.stream(h.sse.SSEHandler()))
	api.Handle("POST /message", h.sse.owners.message(h.sse.MessageHandler()))
	api.HandleFunc("GET /mcp/tools", s.handleRESTTools)
	api.HandleFunc("POST /mcp/call", s.handleRESTCall)
	return api
}

// publicMux routes what is not behind Auth (or has its own): /health,
// /ready, OAuth discovery's 404, the web inbox and the documentation.
func (s *endpoints) publicMux(opts Options) *http.ServeMux {
	root := http.NewServeMux()
	root.HandleFunc("GET /health", s.handleHealth)
	root.Handle("GET /ready", readyHandler(opts.Ready, s.ts.Classify))
	// No OAuth here: a plain 404 for discovery, so that a client with a
	// wrong key (Claude Code tries OAuth discovery after a 401) reports the
	// 401 rather than a failed dynamic client registration.
	root.HandleFunc("/.well-known/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errBody("NOT_FOUND", "this server uses an API key (X-API-Key or Authorization: Bearer), not OAuth"))
	})
	if opts.Pages != nil {
		root.Handle("/ui", opts.Pages)
		root.Handle("/ui/", opts.Pages)
		root.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "ui", http.StatusFound) // relative: MCP_BASE_URL's path stays
		})
	}
	docs := opts.Public
	if docs == nil {
		docs = opts.Auth
	}
	root.Handle("GET /docs", docs(docsHandler(&pageCache{render: s.renderDocs}, opts.PublicURL, opts.BasePath, docsHeader)))
	root.Handle("GET /openapi.json", docs(docsHandler(&pageCache{render: s.renderOpenAPI}, opts.PublicURL, opts.BasePath,
		map[string]string{"Content-Type": "application/json"})))
	return root
}

// admitted calls f, when set, before next.
func admitted(f func(*http.Request), next http.Handler) http.Handler {
	if f == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f(r)
		next.ServeHTTP(w, r)
	})
}

// dropCancellations answers notifications/cancelled on the stateless /mcp
// with 202 and does not pass it on. Without sessions, mcp-go keys in-flight
// requests by JSON-RPC id alone, and every SDK client numbers its requests
// from 0: one client's cancellation would cancel another client's call with
// the same id. On /mcp a call ends when its client closes the connection;
// SSE and stdio, which have sessions, keep notifications/cancelled.
func dropCancellations(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			if b, ok := r.Body.(interface{ Bytes() []byte }); ok && isCancellation(b.Bytes()) {
				log.DebugContext(r.Context(), "notifications/cancelled ignored on stateless /mcp")
				w.WriteHeader(http.StatusAccepted)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isCancellation reports whether body is one notifications/cancelled message.
func isCancellation(body []byte) bool {
	if !bytes.Contains(body, []byte("notifications/cancelled")) {
		return false
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "notifications/cancelled" && msg.ID == nil
}

// endpoints is the server behind the endpoints that ask the MCP server
// themselves: /health, REST, the documentation.
type endpoints struct {
	ts  *mcpkit.Server
	log *slog.Logger
}

func (s *endpoints) handleHealth(w http.ResponseWriter, r *http.Request) {
	info := s.ts.Info()
	writeJSON(w, http.StatusOK, map[string]any{
		"status":   "ok",
		"server":   info.Name,
		"version":  info.Version,
		"uptime_s": int64(time.Since(info.Started).Seconds()),
	})
}
