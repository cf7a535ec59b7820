package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// HTTPOptions configure the HTTP face of the server.
type HTTPOptions struct {
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
	sse        *server.SSEServer
	calls      *inflight
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
	if busy, ok := h.calls.wait(ctx); busy && ok {
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

// inflight counts running calls; wait blocks until there are none.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
}

func (f *inflight) start() {
	f.mu.Lock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	if f.n--; f.n == 0 {
		close(f.idle)
	}
	f.mu.Unlock()
}

// wait blocks until the count is zero; busy reports that it was not at
// first, ok that it reached zero before ctx ended.
func (f *inflight) wait(ctx context.Context) (busy, ok bool) {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return false, true
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return true, true
	case <-ctx.Done():
		return true, false
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
func (s *Server) Handler(opts HTTPOptions) (*HTTP, error) {
	if opts.Auth == nil {
		return nil, errors.New("tools: HTTPOptions.Auth is required")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBody
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = defaultBodyTimeout
	}
	if opts.MinBodyRate <= 0 {
		opts.MinBodyRate = defaultMinBodyRate
	}
	streamable := server.NewStreamableHTTPServer(s.mcp,
		server.WithEndpointPath("/mcp"),
		server.WithStateLess(true),
		server.WithHeartbeatInterval(25*time.Second),
		server.WithStreamableHTTPLogger(s.log),
		// The Host check (DNS rebinding) is Auth's, for every endpoint, with
		// the operator's MCP_ALLOWED_HOSTS; mcp-go's own would refuse a
		// reverse proxy on loopback that keeps the public Host.
		server.WithDisableLocalhostProtection(true),
		// No standalone GET stream: stateless, mcp-go files every GET
		// stream under the session id "", and each POST's ephemeral session
		// then shared its notification channel, so one client's stream
		// received another's progress. Nothing is sent unprompted here
		// (no list_changed, no sampling); GET /mcp answers 405, as the
		// transport allows (handled below, before mcp-go logs it).
		server.WithDisableStreaming(true),
	)
	owners := &sseOwners{caller: s.callerID, owner: map[string]string{}}
	sseOpts := []server.SSEOption{
		server.WithSessionIDGenerator(owners.newID),
		server.WithSSEEndpoint("/sse"),
		server.WithMessageEndpoint("/message"),
		server.WithKeepAliveInterval(15 * time.Second),
		server.WithSSEDisableLocalhostProtection(true), // the Host check is Auth's, as above
	}
	if p := strings.TrimRight(opts.BasePath, "/"); p != "" {
		sseOpts = append(sseOpts, server.WithStaticBasePath(p))
	}
	sse := server.NewSSEServer(s.mcp, sseOpts...)

	api := http.NewServeMux()
	api.Handle("/mcp", dropCancellations(spliceResults(streamable), s.log))
	api.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "POST, DELETE")
		writeJSON(w, http.StatusMethodNotAllowed, errBody("METHOD_NOT_ALLOWED", "this server is stateless: it offers no GET stream on /mcp; POST requests"))
	})
	api.Handle("GET /sse", owners.stream(sse.SSEHandler()))
	api.Handle("POST /message", owners.message(sse.MessageHandler()))
	api.HandleFunc("GET /mcp/tools", s.handleRESTTools)
	api.HandleFunc("POST /mcp/call", s.handleRESTCall)

	root := http.NewServeMux()
	root.HandleFunc("GET /health", s.handleHealth)
	root.Handle("GET /ready", readyHandler(opts.Ready))
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
	pace := bodyPace{timeout: opts.BodyTimeout, rate: opts.MinBodyRate}
	root.Handle("/", opts.Auth(limitBody(opts.MaxBodyBytes, pace, admitted(opts.Admitted, api))))
	return &HTTP{Handler: bodyDeadline(pace, root), streamable: streamable, sse: sse, calls: &s.calls}, nil
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

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"status":   "ok",
		"server":   s.opts.Name,
		"version":  s.opts.Version,
		"uptime_s": int64(time.Since(s.started).Seconds()),
	})
}

// readyTTL is how long a /ready answer is reused. /ready needs no key, and
// each check costs an IMAP NOOP through the pool and an SMTP connection: a
// client polling it fast could otherwise keep the pool busy.
const readyTTL = time.Second

// readyHandler runs every check concurrently with a deadline and answers 200
// or 503 naming the failing parts with their codes (no host or server text).
// Requests share one run: an answer younger than readyTTL is reused, and a
// request that comes while the checks run waits for them.
func readyHandler(checks []ReadyCheck) http.Handler {
	rc := &readyCache{checks: checks, now: time.Now}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, body := rc.get(r.Context())
		writeJSON(w, code, body)
	})
}

// readyCache holds the last /ready answer and the run in progress.
type readyCache struct {
	checks []ReadyCheck
	now    func() time.Time

	mu      sync.Mutex
	at      time.Time // when the last answer was made; zero: none yet
	code    int
	body    map[string]any
	running chan struct{} // closed when the run in progress ends
}

// get returns a fresh enough answer, running the checks when there is none.
func (rc *readyCache) get(ctx context.Context) (int, map[string]any) {
	rc.mu.Lock()
	if !rc.at.IsZero() && rc.now().Sub(rc.at) < readyTTL {
		defer rc.mu.Unlock()
		return rc.code, rc.body
	}
	if rc.running == nil {
		rc.running = make(chan struct{})
		go rc.run(rc.running)
	}
	running := rc.running
	rc.mu.Unlock()
	select {
	case <-running:
	case <-ctx.Done():
		return http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": map[string]string{}}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.code, rc.body
}

// run runs the checks once, stores the answer and closes done.
func (rc *readyCache) run(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results := make(map[string]string, len(rc.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range rc.checks {
		wg.Go(func() {
			status := "ok"
			if err := c.Check(ctx); err != nil {
				te := Classify(err)
				status = string(te.Code) + ": " + te.Message
			}
			mu.Lock()
			results[c.Name] = status
			mu.Unlock()
		})
	}
	wg.Wait()
	code, status := http.StatusOK, "ready"
	for _, v := range results {
		if v != "ok" {
			code, status = http.StatusServiceUnavailable, "unavailable"
		}
	}
	rc.mu.Lock()
	rc.at, rc.code, rc.body = rc.now(), code, map[string]any{"status": status, "checks": results}
	rc.running = nil
	rc.mu.Unlock()
	close(done)
}

// handleRESTTools answers GET /mcp/tools with {"tools":[...]}, exactly the
// tools/list result.
func (s *Server) handleRESTTools(w http.ResponseWriter, r *http.Request) {
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
	s.answerREST(w, r, req)
}

// restCall is the seed's /mcp/call body. jsonrpc and id are optional.
type restCall struct {
	Method string `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      map[string]any `json:"_meta,omitempty"`
	} `json:"params"`
}

// handleRESTCall answers POST /mcp/call with the CallToolResult JSON.
func (s *Server) handleRESTCall(w http.ResponseWriter, r *http.Request) {
	var body restCall
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "body must be JSON: {\"method\":\"tools/call\",\"params\":{\"name\":...,\"arguments\":{...}}}"))
		return
	}
	if body.Method != "" && body.Method != "tools/call" {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "method must be tools/call"))
		return
	}
	if body.Params.Name == "" {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "params.name is required"))
		return
	}
	if sp, ok := s.hidden[body.Params.Name]; ok && s.opts.ReadOnly && sp.changesMail {
		res := errorResult(errorf(CodeReadOnly, "%s is not available: the server is in read-only mode", sp.name))
		writeJSON(w, http.StatusOK, res)
		return
	}
	params := map[string]any{"name": body.Params.Name, "arguments": body.Params.Arguments}
	if body.Params.Meta != nil {
		params["_meta"] = body.Params.Meta
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
	s.answerREST(w, r, req)
}

// answerREST runs one JSON-RPC request through the MCP server (no session:
// the REST endpoints are stateless) and writes its result, or its JSON-RPC
// error with a 4xx/5xx status.
func (s *Server) answerREST(w http.ResponseWriter, r *http.Request, req map[string]any) {
	raw, _ := json.Marshal(req)
	resp := s.mcp.HandleMessage(r.Context(), raw)
	switch m := resp.(type) {
	case mcp.JSONRPCResponse:
		writeJSON(w, http.StatusOK, m.Result)
	case *mcp.JSONRPCResponse:
		writeJSON(w, http.StatusOK, m.Result)
	case mcp.JSONRPCError:
		writeJSON(w, restStatus(m.Error.Code), map[string]any{"error": m.Error})
	case *mcp.JSONRPCError:
		writeJSON(w, restStatus(m.Error.Code), map[string]any{"error": m.Error})
	default:
		writeJSON(w, http.StatusInternalServerError, errBody("INTERNAL", "no response"))
	}
}

func restStatus(code int) int {
	switch code {
	case mcp.INVALID_PARAMS, mcp.INVALID_REQUEST, mcp.PARSE_ERROR, mcp.METHOD_NOT_FOUND:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func errBody(code, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
