package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShutdownEndsWaitsWithNextSince: issue 18 item 2. A wait running at
// SIGTERM (timeout 60 s, beyond the drain) answers a retryable
// WAIT_TIMEOUT with next_since, so the client goes on from there, instead
// of holding the drain and being cut with CANCELLED and nothing to go on
// from.
func TestShutdownEndsWaitsWithNextSince(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	t.Setenv("LOG_LEVEL", "debug") // "watcher connected": the wait is subscribed
	s := startServe(t)
	_, _, created := s.do(t, "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"create_inbox","arguments":{}}}`,
		map[string]string{"X-API-Key": serveKey})
	var c struct {
		StructuredContent struct {
			InboxID string `json:"inbox_id"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal([]byte(created), &c); err != nil || c.StructuredContent.InboxID == "" {
		t.Fatalf("create_inbox = %.300s", created)
	}
	type answer struct {
		body string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		body := `{"method":"tools/call","params":{"name":"wait_for_otp","arguments":{"inbox_id":"` + c.StructuredContent.InboxID + `","timeout":60}}}`
		req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp/call", strings.NewReader(body))
		req.Header.Set("X-API-Key", serveKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{string(b), err}
	}()
	for i := 0; i < 1000 && !strings.Contains(s.log.String(), "watcher connected"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(s.log.String(), "watcher connected") {
		t.Fatalf("the wait never subscribed; log:\n%s", s.log.String())
	}
	s.stop(t)
	a := <-done
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Error struct {
				Code      string `json:"code"`
				Retryable bool   `json:"retryable"`
				NextSince string `json:"next_since"`
			} `json:"error"`
		} `json:"structuredContent"`
	}
	if a.err != nil || json.Unmarshal([]byte(a.body), &res) != nil {
		t.Fatalf("wait_for_otp at SIGTERM: %v %.300s", a.err, a.body)
	}
	if e := res.StructuredContent.Error; !res.IsError || e.Code != "WAIT_TIMEOUT" || !e.Retryable || !strings.HasPrefix(e.NextSince, "msg_") {
		t.Errorf("wait_for_otp at SIGTERM = %.300s, want a retryable WAIT_TIMEOUT with next_since", a.body)
	}
}
