package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const testKey = "test-key"

// newMCPServer runs an mcp-go stateless Streamable HTTP server, as
// email-mcp serves /mcp, behind an API-key check, with three tools: echo
// (structured result), fail (an isError result "NOPE: ..."), and progress
// (a progress notification first, which turns the answer into an SSE
// stream). It returns the URL of /mcp and the number of tool calls served.
func newMCPServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	s := server.NewMCPServer("bench-test", "1")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("word")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		out := map[string]any{"word": req.GetString("word", "")}
		return mcp.NewToolResultStructured(out, `{"word":"`+req.GetString("word", "")+`"}`), nil
	})
	s.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return mcp.NewToolResultError("NOPE: this tool always fails"), nil
	})
	s.AddTool(mcp.NewTool("progress"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
				map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": 1})
		}
		return mcp.NewToolResultStructured(map[string]any{"done": true}, `{"done":true}`), nil
	})
	h := server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp"), server.WithStateLess(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != testKey {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", &calls
}

// TestLoadInProcess runs the load command's MCP side against an in-process
// server: successes, isError results and HTTP failures are counted apart.
func TestLoadInProcess(t *testing.T) {
	url, calls := newMCPServer(t)
	for _, tc := range []struct {
		name, tool, key string
		accept          map[string]bool
		wantOK          int
		wantErrors      map[string]int
	}{
		{"success", "echo", testKey, nil, 40, map[string]int{}},
		{"tool error", "fail", testKey, nil, 0, map[string]int{"tool_NOPE": 40}},
		{"accepted tool error", "fail", testKey, map[string]bool{"tool_NOPE": true}, 40, map[string]int{}},
		{"wrong key", "echo", "wrong", nil, 0, map[string]int{"http_401": 40}},
		{"unknown tool", "nope", testKey, nil, 0, map[string]int{"jsonrpc_-32602": 40}},
	} {
		before := calls.Load()
		o := &loadOptions{URL: url, Key: tc.key, Tool: tc.tool, Args: json.RawMessage(`{"word":"hi"}`), Timeout: 10 * time.Second,
			Plan: plan{Concurrency: 4, Count: 40, Warmup: 3}, Accept: tc.accept}
		s, err := runMCP(t.Context(), o)
		if err != nil {
			t.Fatalf("%s: runMCP() = %v", tc.name, err)
		}
		if s.Calls != 40 || s.OK != tc.wantOK || !sameCounts(s.Errors, tc.wantErrors) || s.Concurrency != 4 {
			t.Errorf("%s: runMCP() = calls %d ok %d errors %v, want 40, %d, %v", tc.name, s.Calls, s.OK, s.Errors, tc.wantOK, tc.wantErrors)
		}
		if tc.wantOK > 0 && (s.LatencyMS.P50 <= 0 || s.LatencyMS.Max < s.LatencyMS.P50 || s.Throughput <= 0 || s.CPU == nil) {
			t.Errorf("%s: runMCP() = latency %+v, throughput %v, cpu %v: want them measured", tc.name, s.LatencyMS, s.Throughput, s.CPU)
		}
		if served := calls.Load() - before; tc.key == testKey && tc.tool != "nope" && served != 43 {
			t.Errorf("%s: the server ran %d tool calls, want 43 (40 + 3 of warmup)", tc.name, served)
		}
	}
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCallSSE: an answer that comes as an event stream, after a progress
// notification, is read to the result.
func TestCallSSE(t *testing.T) {
	url, _ := newMCPServer(t)
	c := newMCPClient(url, testKey, 1, 10*time.Second)
	defer c.close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-Key", testKey)
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q, want an event stream (the test server did not stream)", ct)
	}
	raw, err := readAnswer(resp, 7)
	if err != nil {
		t.Fatalf("readAnswer() = %v", err)
	}
	res, err := decodeAnswer(raw)
	var got struct{ Done bool }
	if err != nil || res.structured(&got) != nil || !got.Done {
		t.Errorf("decodeAnswer(%s) = %v, done %v; want the result", raw, err, got.Done)
	}
}

func TestDecodeAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, raw, wantKind string
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":1}}}`, ""},
		{"isError with code", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"FOLDER_NOT_FOUND: no folder"}],"structuredContent":{"error":{"code":"FOLDER_NOT_FOUND"}},"isError":true}}`, "tool_FOLDER_NOT_FOUND"},
		{"isError text only", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"WAIT_TIMEOUT: nothing"}],"isError":true}}`, "tool_WAIT_TIMEOUT"},
		{"isError no code", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"it broke"}],"isError":true}}`, "tool_UNKNOWN"},
		{"isError false", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`, ""},
		{"isError in a subject", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"subject\":\"\\\"isError\\\":true\"}"}]}}`, ""},
		{"jsonrpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"tool not found"}}`, "jsonrpc_-32602"},
		{"neither", `{"jsonrpc":"2.0","id":1}`, "decode"},
		{"not json", `<html>`, "decode"},
	} {
		_, err := decodeAnswer([]byte(tc.raw))
		if got := errKind(err); got != tc.wantKind {
			t.Errorf("%s: decodeAnswer() kind = %q (%v), want %q", tc.name, got, err, tc.wantKind)
		}
		if r, ok := fastResult([]byte(tc.raw), 1); ok && tc.wantKind != "" {
			t.Errorf("%s: fastResult() = %s, true; want it left to decodeAnswer", tc.name, r.raw)
		}
	}
	if _, ok := fastResult([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`), 1); ok {
		t.Error("fastResult(answer to id 2, want 1) = true, want false")
	}
}

func TestReadSSE(t *testing.T) {
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\n" + // one event in two data lines
		"data: \"result\":{\"content\":[]}}\n\n"
	got, err := readSSE(strings.NewReader(stream), 3)
	if err != nil || !strings.Contains(string(got), `"result"`) {
		t.Errorf("readSSE() = %s, %v; want the answer to id 3", got, err)
	}
	if _, err := readSSE(strings.NewReader("data: {\"id\":4}\n\n"), 3); errKind(err) != "decode" {
		t.Errorf("readSSE(no answer) = %v, want a decode error", err)
	}
}
