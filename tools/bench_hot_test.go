package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// Benchmarks of the tool layer alone: a fake Mailbox answers at once, so
// what is measured is what email-mcp adds to the IMAP work (arguments,
// page building, message decoding, JSON). Run with -benchmem:
//
//	go test ./tools -run '^$' -bench Hot -benchmem
//
// Compare with the IMAP side in cmd/email-mcp-bench (raw mode); the whole
// HTTP call is transport's BenchmarkHotHTTP.

// newBenchServer is the tools over toolstest.BenchMail.
func newBenchServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := New(Deps{Mail: &toolstest.BenchMail{Page: toolstest.BenchPage(200), Msg: toolstest.BenchMessage()}}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// callBody is a JSON-RPC tools/call request.
func callBody(tool, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
}

// BenchmarkHotSearchPage: search_emails with a page of 50, in process
// (HandleMessage and the JSON of the answer, as the transport writes it).
func BenchmarkHotSearchPage(b *testing.B) {
	s := newBenchServer(b)
	body := callBody("search_emails", `{"limit":50}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(s.MCP().HandleMessage(ctx, body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHotResultJSON: the answer to a search of 50, encoded as mcp-go
// does it on stdio and SSE (the result marshalled for the text content,
// then again by reflection as structuredContent), against passing the
// text's bytes as structuredContent (json.RawMessage: slower, encoding/json
// compacts it again) and against a short text content. /mcp's splice is
// transport's BenchmarkHotResultJSON.
func BenchmarkHotResultJSON(b *testing.B) {
	out, err := searchEmails(context.Background(), &toolstest.BenchMail{Page: toolstest.BenchPage(50)}, searchArgs{}, 50)
	if err != nil {
		b.Fatal(err)
	}
	encode := func(b *testing.B, res func(text []byte) *mcp.CallToolResult) {
		b.ReportAllocs()
		for b.Loop() {
			text, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			resp := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), res(text))
			if _, err := json.Marshal(resp); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("struct-twice", func(b *testing.B) {
		encode(b, func(text []byte) *mcp.CallToolResult { return mcp.NewToolResultStructured(out, string(text)) })
	})
	b.Run("raw-message", func(b *testing.B) {
		encode(b, func(text []byte) *mcp.CallToolResult {
			return mcp.NewToolResultStructured(json.RawMessage(text), string(text))
		})
	})
	// A one-line text instead of the JSON again (what dropping the
	// duplicate would save; clients that read only text would lose data).
	b.Run("short-text", func(b *testing.B) {
		encode(b, func([]byte) *mcp.CallToolResult {
			return mcp.NewToolResultStructured(out, "50 of 10000 messages in INBOX, newest first")
		})
	})
}
