package web

import (
	"context"
	"embed"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Tools is what the page needs of the MCP server (tools.Server has it).
type Tools interface {
	// Call runs a tool through the registry; it returns the
	// structuredContent and whether it is an error result.
	Call(ctx context.Context, name string, args map[string]any) (json.RawMessage, bool, error)
	// ToolNames lists the served tools: the page offers only what they allow.
	ToolNames() []string
	Source(ctx context.Context, folder, uid string, limit int64) ([]byte, bool, error)
	Attachment(ctx context.Context, folder, uid string, index int, w io.Writer, head func(name, contentType string)) error
	Watch(ctx context.Context, folder string, ready func(), arrived func(uid uint32)) error
	// Find is what the waits would take from a raw message (its OTP and
	// action link with their confidence), as JSON.
	Find(raw []byte) json.RawMessage
}

// Options configure the page.
type Options struct {
	Tools Tools
	// Auth is the API's middleware (auth.New): every request of the page
	// passes through it with the session's key.
	Auth func(http.Handler) http.Handler
	// Key is the API key the one-time login links sign in with.
	Key string
	// Secure marks the cookie Secure (served over TLS, or MCP_BASE_URL is
	// https); it is also set for any request that arrived over TLS.
	Secure bool
	// Name is the server's name, shown in the title.
	Name   string
	Logger *slog.Logger
	// SessionTTL is how long a session lasts; default 12 h.
	SessionTTL time.Duration
	// LinkTTL is how long a login link is valid; default 10 min.
	LinkTTL time.Duration
	// Stop, once closed, ends the open event streams: the server is
	// shutting down, and http.Server.Shutdown waits for them otherwise.
	Stop <-chan struct{}
}

// Handler serves /ui. Build it with New.
type Handler struct {
	opts Options
	mux  *http.ServeMux
	log  *slog.Logger
	now  func() time.Time

	mu       sync.Mutex
	sessions map[string]*session // by cookie value
	links    map[string]linkGrant
}

//go:embed assets
var assets embed.FS

// New builds the page's handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	if opts.LinkTTL <= 0 {
		opts.LinkTTL = 10 * time.Minute
	}
	if opts.Name == "" {
		opts.Name = "email-mcp"
	}
	h := &Handler{opts: opts, log: opts.Logger, now: time.Now, sessions: map[string]*session{}, links: map[string]linkGrant{}}
	static, _ := fs.Sub(assets, "assets")
	m := http.NewServeMux()
	m.HandleFunc("GET /ui", h.index)
	m.HandleFunc("GET /ui/{$}", h.index)
	m.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", staticFiles(static)))
	m.HandleFunc("POST /ui/login", h.login)
	m.Handle("POST /ui/logout", h.signedIn(true, http.HandlerFunc(h.logout)))
	h.api(m)
	h.mux = m
	return h
}

// ServeHTTP answers every /ui request with the page's security headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if hd.Get("Content-Security-Policy") == "" {
		hd.Set("Content-Security-Policy", pageCSP)
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	h.mux.ServeHTTP(w, r)
}

// pageCSP is the page's policy: its own script and style only.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func staticFiles(root fs.FS) http.Handler {
	files := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") || r.URL.Path == "" {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// index serves the page; with ?token= it first trades a login link for a
// session and redirects to the clean URL.
func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	if tok := r.URL.Query().Get("token"); tok != "" {
		h.redeem(w, r, tok)
		return
	}
	b, _ := assets.ReadFile("assets/index.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if raw, ok := v.(json.RawMessage); ok {
		_, _ = w.Write(raw)
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg}})
}
