package tools_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/tools"
)

// post sends one JSON-RPC message to the env's /mcp and returns the answer.
func (e *testEnv) post(t testing.TB, body string) (int, string) {
	return postMCP(t, e.http.URL, testKey, body)
}

// postMCP sends one JSON-RPC message to url's /mcp with key and returns the
// status and the answer. It reports failures with t.Error (it is called
// from goroutines too) and then returns 0, "".
func postMCP(t testing.TB, url, key, body string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestStatelessCancelIsDropped: on the stateless /mcp every client numbers
// its requests from 0, so a notifications/cancelled for id 7 from one
// client must not end another client's call 7: it is answered 202 and
// dropped, and the other wait runs to its own timeout.
func TestStatelessCancelIsDropped(t *testing.T) {
	e := newTestEnv(t, tools.Options{})
	_, created := e.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_inbox","arguments":{}}}`)
	id := between(created, `"inbox_id":"`, `"`)
	if id == "" {
		t.Fatalf("create_inbox = %s", created)
	}
	done := make(chan string, 1)
	go func() {
		_, body := e.post(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_for_email","arguments":{"inbox_id":"`+id+`","timeout":2}}}`)
		done <- body
	}()
	for i := 0; i < 200 && e.mail.WatchStats().Subscribers == 0; i++ { // bounded: 5 s
		time.Sleep(25 * time.Millisecond)
	}
	if e.mail.WatchStats().Subscribers == 0 {
		t.Fatal("the wait never started")
	}
	if status, body := e.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"another client"}}`); status != http.StatusAccepted {
		t.Errorf("notifications/cancelled = %d %s, want 202", status, body)
	}
	select {
	case body := <-done:
		if !strings.Contains(body, "WAIT_TIMEOUT") {
			t.Errorf("the other client's wait = %.300s, want it to run to WAIT_TIMEOUT", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the wait did not answer")
	}
}

// between returns the text of s after start up to end, or "".
func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, end)
	return v
}
