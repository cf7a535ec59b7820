package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// Benchmarks of the HTTP face over the tools on a fake Mailbox, which
// answers at once: what is measured is what email-mcp adds to the IMAP work
// (HTTP, the API key, body limits, JSON-RPC, the tool, JSON). Run with
// -benchmem:
//
//	go test ./transport -run '^$' -bench Hot -benchmem
//
// The tool layer alone is tools' BenchmarkHotSearchPage.

const benchKey = "bench-key-0123456789abcdef"

// newBenchServer is the tools over toolstest.BenchMail, with the HTTP endpoints
// behind the API-key middleware on a loopback httptest server.
func newBenchServer(tb testing.TB) (*tools.Server, string) {
	tb.Helper()
	return newBenchServerWith(tb, &toolstest.BenchMail{Page: toolstest.BenchPage(200), Msg: toolstest.BenchMessage()})
}

// newBenchServerWith is newBenchServer over mail.
func newBenchServerWith(tb testing.TB, mail tools.Mailbox) (*tools.Server, string) {
	tb.Helper()
	s, err := tools.New(tools.Deps{Mail: mail}, tools.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s, serveBench(tb, s) + "/mcp"
}

// serveBench serves s behind the API-key middleware (benchKey) on a
// loopback httptest server and returns its URL.
func serveBench(tb testing.TB, s *tools.Server) string {
	tb.Helper()
	mw, err := auth.New(auth.Options{Keys: []string{benchKey}})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := Handler(s.Server, Options{Auth: mw})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

// callBody is a JSON-RPC tools/call request.
func callBody(tool, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
}

// postMCP sends body to url as a stateless Streamable HTTP client does and
// returns the answer.
func postMCP(tb testing.TB, c *http.Client, url string, body []byte) []byte {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-Key", benchKey)
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST /mcp = %d, %v: %.200s", resp.StatusCode, err, b)
	}
	return b
}

// TestHotBenchServer checks that the benchmarks below measure successful
// calls (and the one failing call they mean to measure).
func TestHotBenchServer(t *testing.T) {
	_, url := newBenchServer(t)
	c := &http.Client{}
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"search_emails", `{"limit":50}`, `"uid":9951,`},
		{"read_email", `{"uid":9990}`, `Line 39 of the report`},
		{"read_email", `{"uid":"not-a-uid"}`, `INVALID_ARGUMENT`},
	} {
		got := string(postMCP(t, c, url, callBody(tc.tool, tc.args)))
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s(%s) = %.300s, want it to contain %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// BenchmarkHotHTTP: one call through the whole HTTP stack (client,
// net/http, API key, body limit, mcp-go Streamable HTTP, the tool, JSON).
func BenchmarkHotHTTP(b *testing.B) {
	for _, bc := range []struct{ name, tool, args string }{
		{"search_emails-50", "search_emails", `{"limit":50}`},
		{"read_email-6KB", "read_email", `{"uid":9990}`},
		{"no-io-bad-uid", "read_email", `{"uid":"not-a-uid"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, url := newBenchServer(b)
			c := &http.Client{}
			body := callBody(bc.tool, bc.args)
			b.ReportAllocs()
			for b.Loop() {
				postMCP(b, c, url, body)
			}
		})
	}
}

// BenchmarkHotResultJSON: the answer to a search of 50 as /mcp encodes it
// (splice.go): the result encoded once, placeholders through mcp-go, the
// bytes put in their place as the answer is written. The other ways of
// encoding it (struct-twice: what this saves) are tools'
// BenchmarkHotResultJSON.
func BenchmarkHotResultJSON(b *testing.B) {
	s, _ := newBenchServerWith(b, &toolstest.BenchMail{Page: toolstest.BenchPage(50)})
	out := structuredOf(b, s, callBody("search_emails", `{"limit":50}`))
	b.Run("splice", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			text, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			ctx, sp := withSplice(context.Background())
			resp := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), placeholderResult(ctx, text))
			msg, err := json.Marshal(resp)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := sp.apply(msg); !ok {
				b.Fatal("nothing spliced")
			}
		}
	})
}

// structuredOf is the structuredContent of the result of a call made in
// process (the handler's own value: no splice there).
func structuredOf(tb testing.TB, s *tools.Server, body []byte) any {
	tb.Helper()
	resp, ok := s.MCP().HandleMessage(context.Background(), body).(mcp.JSONRPCResponse)
	if !ok {
		tb.Fatal("no JSON-RPC result")
	}
	res, ok := resp.Result.(*mcp.CallToolResult)
	if !ok || res.IsError || res.StructuredContent == nil {
		tb.Fatalf("result = %#v, want a successful tool result", resp.Result)
	}
	if _, raw := res.StructuredContent.(json.RawMessage); raw {
		tb.Fatal("structuredContent is cleaned JSON, not the handler's value")
	}
	return res.StructuredContent
}
