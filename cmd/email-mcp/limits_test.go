package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// callOutcome is what one tool call through the binary came back as.
type callOutcome struct {
	status     int    // HTTP status
	code       string // "" for a successful result, else the tool error's code
	retryAfter int    // retry_after_seconds of a tool error
}

// toolCall calls list_inboxes (cheap, no mail needed) through /mcp/call or,
// as a JSON-RPC tools/call, through /mcp. It returns an error instead of
// failing the test, for use on other goroutines.
func (s *serving) toolCall(client *http.Client, path string, id int) (callOutcome, error) {
	body := `{"method":"tools/call","params":{"name":"list_inboxes","arguments":{}}}`
	if path == "/mcp" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_inboxes","arguments":{}}}`, id)
	}
	req, err := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(body))
	if err != nil {
		return callOutcome{}, err
	}
	for k, v := range keyed {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return callOutcome{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return callOutcome{}, err
	}
	out := callOutcome{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		return out, nil
	}
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Error struct {
				Code       string `json:"code"`
				RetryAfter int    `json:"retry_after_seconds"`
			} `json:"error"`
		} `json:"structuredContent"`
	}
	if path == "/mcp" {
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || msg.Result == nil {
			return out, fmt.Errorf("POST /mcp: not a JSON-RPC result: %.200s", raw)
		}
		raw = msg.Result
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return out, fmt.Errorf("POST %s: %v in %.200s", path, err, raw)
	}
	if res.IsError {
		out.code, out.retryAfter = res.StructuredContent.Error.Code, res.StructuredContent.Error.RetryAfter
		if out.code == "" {
			out.code = "isError without a code"
		}
	}
	return out, nil
}

// mcpPlumbing sends what an SDK client sends before its calls: initialize,
// notifications/initialized, tools/list and ping. None of it may count.
func (s *serving) mcpPlumbing(t *testing.T) {
	t.Helper()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	} {
		if status, _, body := s.do(t, "POST", "/mcp", m, keyed); status != 200 && status != 202 {
			t.Fatalf("POST /mcp %.60s = %d %.200s", m, status, body)
		}
	}
	if status, _, _ := s.do(t, "GET", "/mcp/tools", "", keyed); status != 200 {
		t.Fatalf("GET /mcp/tools = %d", status)
	}
}

// TestDefaultLimitServesOrdinaryClients: with the default
// RATE_LIMIT_PER_MINUTE, a client's handshake and tool listing cost
// nothing, 30 successive tool calls all succeed, and so do 8 parallel
// workers of 50 calls each (each with its own handshake). Before, the
// default (120 HTTP requests a minute, bursts of 12) answered the 13th
// request 429.
func TestDefaultLimitServesOrdinaryClients(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "") // the default
	s := startServe(t)
	for range 5 {
		s.mcpPlumbing(t)
	}
	for _, path := range []string{"/mcp/call", "/mcp"} {
		for i := range 30 {
			out, err := s.toolCall(http.DefaultClient, path, i)
			if err != nil || out.status != 200 || out.code != "" {
				t.Fatalf("%s call %d of 30 = %+v, %v; want a result", path, i+1, out, err)
			}
		}
	}
	const workers, calls = 8, 50
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for w := range workers {
		s.mcpPlumbing(t)
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			path := []string{"/mcp", "/mcp/call"}[w%2]
			for i := range calls {
				out, err := s.toolCall(client, path, i)
				if err != nil || out.status != 200 || out.code != "" {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("worker %d %s call %d: %+v %v", w, path, i, out, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d parallel calls failed, first: %s", len(failures), workers*calls, failures[0])
	}
	s.stop(t)
}

// TestRunawayClientLimited: with the default limit on a frozen clock (no
// refill, so the count is exact on any machine), a client that calls in a
// loop gets exactly the burst, then RATE_LIMITED tool results with
// retry_after_seconds: 200 with an isError CallToolResult on /mcp/call, a
// JSON-RPC result on /mcp; never a 429.
func TestRunawayClientLimited(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "")
	frozen := time.Unix(1_700_000_000, 0)
	old := limiterClock
	limiterClock = func() time.Time { return frozen }
	t.Cleanup(func() { limiterClock = old })
	s := startServe(t)
	const runaway = 2000
	counts := map[string]int{}
	for i := range runaway {
		path := []string{"/mcp/call", "/mcp"}[i%2]
		out, err := s.toolCall(http.DefaultClient, path, i)
		if err != nil || out.status != 200 {
			t.Fatalf("call %d on %s = %+v, %v; want 200 with a tool result", i, path, out, err)
		}
		if out.code == "RATE_LIMITED" && out.retryAfter < 1 {
			t.Fatalf("call %d: RATE_LIMITED with retry_after_seconds %d, want >= 1", i, out.retryAfter)
		}
		counts[out.code]++
	}
	t.Logf("runaway client, %d calls: %d results, %d RATE_LIMITED", runaway, counts[""], counts["RATE_LIMITED"])
	const burst = 600 // auth.Burst of the default 1200 a minute
	if counts[""] != burst || counts["RATE_LIMITED"] != runaway-burst {
		t.Errorf("outcomes %v, want %d results and %d RATE_LIMITED", counts, burst, runaway-burst)
	}
	// The handshake still works for the limited key, and /health is free.
	s.mcpPlumbing(t)
	if status, _, _ := s.do(t, "GET", "/health", "", nil); status != 200 {
		t.Errorf("/health = %d", status)
	}
	s.stop(t)
}
