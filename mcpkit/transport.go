package mcpkit

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// What the transports (package transport) need from the server, and no
// more: the mcp-go server (MCP), what /health and the documentation say
// (Info, Codes), the caller of a request (CallerID), the logger, the
// read-only refusal of /mcp/call (Refusal), a hook for the encoded result of
// a call (SetResultHook) and the drain of running calls at shutdown
// (WaitIdle).

// Info is what the server says about itself on /health and in the API
// documentation.
type Info struct {
	Name, Version string
	ReadOnly      bool      // MCP_READ_ONLY: the tools that change mail are not served
	Started       time.Time // when New built the server
}

// Info returns the server's name, version, mode and start time.
func (s *Server) Info() Info {
	return Info{Name: s.opts.Name, Version: s.opts.Version, ReadOnly: s.opts.ReadOnly, Started: s.started}
}

// Logger returns the server's logger (Options.Logger, or a discarding one).
func (s *Server) Logger() *slog.Logger { return s.log }

// CallerID names the authenticated caller of ctx's request (Options.CallerID),
// or "" without one.
func (s *Server) CallerID(ctx context.Context) string { return s.callerID(ctx) }

// Refusal is the READ_ONLY result of a call to name when read-only mode hides
// that tool, or nil when it does not.
func (s *Server) Refusal(name string) *mcp.CallToolResult {
	sp, ok := s.hidden[name]
	if !ok || !s.opts.ReadOnly || !sp.ChangesMail {
		return nil
	}
	return errorResult(Errorf(CodeReadOnly, "%s is not available: the server is in read-only mode", sp.Name))
}

// CodeDoc describes one error code for the documentation.
type CodeDoc struct {
	Code      Code
	Message   string // the generic message a result carries
	Retryable bool
}

// Codes lists every error code, sorted, with its generic message.
func Codes() []CodeDoc {
	codes := make([]CodeDoc, 0, len(codeInfo))
	for _, c := range slices.Sorted(maps.Keys(codeInfo)) {
		codes = append(codes, CodeDoc{c, codeInfo[c].message, codeInfo[c].retryable})
	}
	return codes
}

// ResultHook receives the JSON of a successful call's result, encoded once,
// for the request of ctx. It returns the CallToolResult that mcp-go sends in
// its place (the transport then writes the bytes itself), or nil: mcp-go
// sends the result as it is.
type ResultHook func(ctx context.Context, result []byte) *mcp.CallToolResult

// SetResultHook registers h for every call from now on (nil removes it).
func (s *Server) SetResultHook(h ResultHook) { s.hook.Store(&h) }

// placeholder asks the result hook, when one is set, for the result that
// stands for text.
func (s *Server) placeholder(ctx context.Context, text []byte) *mcp.CallToolResult {
	h := s.hook.Load()
	if h == nil || *h == nil {
		return nil
	}
	return (*h)(ctx, text)
}

// WaitIdle blocks until no tool call runs; busy reports that some did at
// first, ok that they all returned before ctx ended.
func (s *Server) WaitIdle(ctx context.Context) (busy, ok bool) { return s.calls.wait(ctx) }

// resultHook holds the registered ResultHook.
type resultHook = atomic.Pointer[ResultHook]

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
