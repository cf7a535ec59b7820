package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// callSend calls send_email through /mcp/call and returns the error code,
// "" on success.
func (s *serving) callSend(t *testing.T, args map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": "send_email", "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp/call", strings.NewReader(string(b)))
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"structuredContent"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatalf("/mcp/call send_email: %v", err)
	}
	if !res.IsError {
		return ""
	}
	return res.StructuredContent.Error.Code
}

// TestSendCapTwoServes: two `email-mcp serve` over one account (a mail
// server of the test, as the sandbox of a first binary would be) with
// SEND_MAX_PER_HOUR=5: ten sends, alternating between them, deliver 5; each
// counting alone let all ten out.
func TestSendCapTwoServes(t *testing.T) {
	sharedAccountEnv(t, map[string]string{"SEND_MAX_PER_HOUR": "5"})
	var replicas []*serving
	for range 2 {
		t.Setenv("MCP_PORT", strconv.Itoa(freePort(t)))
		replicas = append(replicas, startServeKeepEnv(t))
	}
	sent, limited := 0, 0
	for i := range 10 {
		switch code := replicas[i%2].callSend(t, map[string]any{"to": "bob@example.test", "subject": fmt.Sprintf("capped %d", i), "body": "b"}); code {
		case "":
			sent++
		case "RATE_LIMITED":
			limited++
		default:
			t.Errorf("send %d = %s", i, code)
		}
	}
	if n := replicas[0].inboxCount(t); sent != 5 || limited != 5 || n != 5 {
		t.Errorf("10 sends over two serves with SEND_MAX_PER_HOUR=5: %d sent, %d RATE_LIMITED, %d delivered; want 5, 5, 5", sent, limited, n)
	}
	for _, r := range replicas {
		r.stop(t)
	}
}
