package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Splicing the JSON of a result into the /mcp answer.
//
// A successful call's result goes out twice, as the MCP spec asks: as
// structuredContent and as the JSON text of a text content. mcp-go encodes
// it through CallToolResult.MarshalJSON (a map marshalled again), and
// encoding/json then compacts that marshaller's whole output once more: for
// a search page of 50 (about 20 KB of JSON) that was 0.38 ms of CPU per
// call, more than the rest of the HTTP and JSON-RPC handling
// (BenchmarkHotResultJSON, BENCHMARKS.md).
//
// On /mcp the result therefore goes to mcp-go as two placeholders, and the
// response writer puts the bytes, encoded once by the tools (handed over
// through mcpkit.Server's result hook), in their place: the answer is byte
// for byte what mcp-go would have written (TestSpliceMatchesMCPGo). Only a successful result of a call made through
// /mcp's handler is spliced; stdio, SSE and /mcp/call, and error results,
// take mcp-go's path. The placeholders carry a per-process random nonce, and
// they are looked for only in what mcp-go writes, before any result bytes are
// in it: nothing a message or a client sends can stand for them.
var spliceNonce = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

var (
	// textMark is the text content's placeholder; mcp-go writes it as the
	// JSON string textMarkJSON.
	textMark     = "\x00email-mcp-text:" + spliceNonce
	textMarkJSON = []byte(`"\u0000email-mcp-text:` + spliceNonce + `"`)
	// structuredMarkJSON is the structuredContent placeholder, a JSON string
	// that compacting leaves as it is.
	structuredMarkJSON = []byte(`"\u0000email-mcp-structured:` + spliceNonce + `"`)
)

type spliceKey struct{}

// splice carries one result from the result hook to the response writer of the same
// /mcp request. A request has one JSON-RPC message, so at most one result.
// The handler's goroutine hands it over while mcp-go's notification
// forwarder may be writing a progress event on another: mu orders them.
type splice struct {
	mu     sync.Mutex
	result []byte // the result's JSON; nil until a call hands one over
	done   bool   // the result was handed over (and is written or dropped)
}

// withSplice returns ctx carrying a fresh splice for one /mcp request.
func withSplice(ctx context.Context) (context.Context, *splice) {
	sp := &splice{}
	return context.WithValue(ctx, spliceKey{}, sp), sp
}

// placeholderResult is the tools' result hook (mcpkit.ResultHook): it hands
// result to the /mcp request of ctx and returns the CallToolResult standing
// for it, or nil when ctx is not such a request (or
// its one result was already handed over).
func placeholderResult(ctx context.Context, result []byte) *mcp.CallToolResult {
	sp, _ := ctx.Value(spliceKey{}).(*splice)
	if sp == nil {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.done {
		return nil
	}
	sp.result, sp.done = result, true
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.TextContent{Type: "text", Text: textMark}},
		StructuredContent: json.RawMessage(structuredMarkJSON),
	}
}

// apply returns p with the placeholders replaced, and whether it did so.
// mcp-go writes each message with one Write (Encoder.Encode for a JSON
// answer, one event for an SSE one), so both placeholders are in the same p.
func (sp *splice) apply(p []byte) ([]byte, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.result == nil {
		return nil, false
	}
	t := bytes.Index(p, textMarkJSON)
	s := bytes.Index(p, structuredMarkJSON)
	if t < 0 || s < 0 {
		return nil, false
	}
	// Put them in the order they appear (mcp-go sorts the keys: content,
	// then structuredContent).
	type part struct {
		at, n int
		with  func([]byte) []byte
	}
	text := part{t, len(textMarkJSON), func(b []byte) []byte { return appendJSONText(b, sp.result) }}
	structured := part{s, len(structuredMarkJSON), func(b []byte) []byte { return append(b, sp.result...) }}
	first, second := text, structured
	if s < t {
		first, second = structured, text
	}
	out := make([]byte, 0, len(p)+3*len(sp.result))
	out = append(out, p[:first.at]...)
	out = first.with(out)
	out = append(out, p[first.at+first.n:second.at]...)
	out = second.with(out)
	out = append(out, p[second.at+second.n:]...)
	sp.result = nil
	return out, true
}

// appendJSONText appends doc, the output of json.Marshal, as a JSON string.
// json.Marshal writes no control character and no invalid UTF-8, and already
// escapes <, >, &, U+2028 and U+2029 inside its strings (which do not occur
// outside them): only quotes and backslashes are left to escape, which gives
// the bytes encoding/json writes for the same string.
func appendJSONText(b, doc []byte) []byte {
	b = append(b, '"')
	for {
		i := bytes.IndexAny(doc, `"\`)
		if i < 0 {
			break
		}
		b = append(b, doc[:i]...)
		b = append(b, '\\', doc[i])
		doc = doc[i+1:]
	}
	b = append(b, doc...)
	return append(b, '"')
}

// spliceResults gives each request a splice and writes the answer with the
// result in place.
func spliceResults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ctx, sp := withSplice(r.Context())
		next.ServeHTTP(&spliceWriter{ResponseWriter: w, sp: sp}, r.WithContext(ctx))
	})
}

// spliceWriter is the response writer of a /mcp POST.
type spliceWriter struct {
	http.ResponseWriter
	sp *splice
}

func (w *spliceWriter) Write(p []byte) (int, error) {
	if out, ok := w.sp.apply(p); ok {
		if _, err := w.ResponseWriter.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps the answer streamable (mcp-go upgrades it to SSE for progress
// notifications only when the writer can flush).
func (w *spliceWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *spliceWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
