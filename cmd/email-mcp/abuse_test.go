package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// do sends one request to the serving binary and returns status, headers
// and body.
func (s *serving) do(t *testing.T, method, path, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var keyed = map[string]string{"X-API-Key": serveKey, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestHTTPAbuse throws hostile requests at the running binary: every one
// gets its specific refusal, the server keeps answering, and the log never
// shows a key.
func TestHTTPAbuse(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	s := startServe(t)
	const wrongKey = "wrong-key-abcdefghijklmnop"
	tests := []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		want                     string // in the body
	}{
		{"no key", "POST", "/mcp/call", "{}", map[string]string{}, 401, "UNAUTHORIZED"},
		{"wrong key", "POST", "/mcp/call", "{}", map[string]string{"X-API-Key": wrongKey}, 401, "UNAUTHORIZED"},
		{"wrong bearer", "POST", "/mcp", "{}", map[string]string{"Authorization": "Bearer " + wrongKey}, 401, "UNAUTHORIZED"},
		{"key in the URL", "GET", "/mcp/tools?api_key=" + serveKey, "", map[string]string{}, 400, "API_KEY_IN_QUERY"},
		{"foreign Origin", "POST", "/mcp", "{}", with(keyed, "Origin", "https://evil.example"), 403, "FORBIDDEN_ORIGIN"},
		{"rebound Host", "POST", "/mcp", "{}", with(keyed, "Host", "evil.example:8420"), 403, "FORBIDDEN_HOST"},
		{"rebound Host on SSE", "GET", "/sse", "", with(keyed, "Host", "attacker.example"), 403, "FORBIDDEN_HOST"},
		{"oversized body", "POST", "/mcp", strings.Repeat(" ", 5<<20), keyed, 413, "REQUEST_TOO_LARGE"},
		{"malformed JSON-RPC", "POST", "/mcp", `{"jsonrpc":"2.0",`, keyed, 400, "-32700"},
		{"deeply nested JSON", "POST", "/mcp", strings.Repeat("[", 100000), keyed, 400, "-32700"},
		{"unknown method", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"mail/exfiltrate"}`, keyed, 200, "-32601"},
		{"unknown tool", "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}`, keyed, 400, "rm_rf"},
		{"huge argument", "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"search_emails","arguments":{"text":"` +
			strings.Repeat("a", 3<<20) + `"}}}`, keyed, 200, "is too long (3145728 bytes; at most 1024)"},
		{"CR/LF in a header field", "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"send_email","arguments":{"to":"a@example.test","subject":"hi\r\nBcc: x@evil.example","body":"b"}}}`,
			keyed, 200, "INVALID_ARGUMENT"},
		{"wrong method on /mcp/call", "GET", "/mcp/call", "", keyed, 405, ""},
	}
	refused := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := s.do(t, tt.method, tt.path, tt.body, tt.hdr)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("%s %s = %d %.300s; want %d with %q", tt.method, tt.path, status, body, tt.status, tt.want)
			}
			refused++
		})
	}
	t.Logf("hostile HTTP requests refused with their specific answer: %d of %d", refused, len(tests))

	// A missing and a wrong key get byte-identical answers.
	_, h1, b1 := s.do(t, "POST", "/mcp", "{}", map[string]string{})
	_, h2, b2 := s.do(t, "POST", "/mcp", "{}", map[string]string{"X-API-Key": wrongKey})
	h1.Del("Date")
	h2.Del("Date")
	if b1 != b2 || !sameHeaders(h1, h2) {
		t.Errorf("missing key: %v %s; wrong key: %v %s; want identical", h1, b1, h2, b2)
	}
	if status, _, _ := s.do(t, "GET", "/health", "", nil); status != 200 {
		t.Errorf("/health after the abuse = %d", status)
	}
	if log := s.log.String(); strings.Contains(log, serveKey) || strings.Contains(log, wrongKey) {
		t.Errorf("the log shows an API key:\n%s", log)
	}
	s.stop(t)
}

func sameHeaders(a, b http.Header) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestSlowLoris: a client that never finishes its headers is disconnected
// after the header timeout, and others are served meanwhile.
func TestSlowLoris(t *testing.T) {
	old := readHeaderTimeout
	// Long enough that the slow clients still hang while /health is asked
	// on a loaded machine, short enough for a test.
	readHeaderTimeout = 2 * time.Second
	t.Cleanup(func() { readHeaderTimeout = old })
	s := startServe(t)
	conns := make([]net.Conn, 20)
	for i := range conns {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	if status, _, _ := s.do(t, "GET", "/health", "", nil); status != 200 {
		t.Errorf("/health while slow clients hang = %d", status)
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hang detector, far above the timeout
		if _, err := io.ReadAll(c); err != nil {
			t.Fatalf("slow client %d was not disconnected: %v", i, err)
		}
	}
	s.stop(t)
}

// TestConnectionFlood: beyond MCP_MAX_CONNECTIONS new connections get a 503
// at once (no crash, no queue) while every open one is within its second of
// grace, or displace an older unauthenticated one (closed); once they
// close, the server serves again.
func TestConnectionFlood(t *testing.T) {
	t.Setenv("MCP_MAX_CONNECTIONS", "32")
	s := startServe(t)
	addr := strings.TrimPrefix(s.base, "http://")
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	got503, closed := 0, 0
	const flood = 2000
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		held = append(held, c)
	}
	for _, c := range held[32:] {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		switch {
		case err == nil && strings.HasPrefix(line, "HTTP/1.1 503"):
			got503++
		case err == io.EOF || errors.Is(err, syscall.ECONNRESET):
			closed++ // more refusals at once than the 503 writers: closed at once
		default:
			t.Fatalf("connection over the limit: %q, %v; want a 503 or a close", line, err)
		}
	}
	t.Logf("connections opened: %d, limit 32, over it answered 503: %d, closed: %d", flood, got503, closed)
	if got503 == 0 {
		t.Error("no connection over the limit got a 503")
	}
	for _, c := range held {
		c.Close()
	}
	held = nil
	ok := false
	for range 100 { // bounded: the held slots free as the server sees the closes
		if status, _, body := s.do(t, "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"list_folders","arguments":{}}}`, keyed); status == 200 && strings.Contains(body, "INBOX") {
			ok = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ok {
		t.Fatal("the server did not serve again after the flood")
	}
	s.stop(t)
}

// TestAllowedHostBehindProxy: a reverse proxy on loopback that keeps the
// public Host (in MCP_ALLOWED_HOSTS) reaches /mcp and the legacy SSE
// endpoints alike; mcp-go's own loopback-only Host checks are off.
func TestAllowedHostBehindProxy(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	t.Setenv("MCP_ALLOWED_HOSTS", "mcp.example.test")
	s := startServe(t)
	const host = "mcp.example.test"
	status, _, body := s.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, with(keyed, "Host", host))
	if status != 200 || !strings.Contains(body, "search_emails") {
		t.Errorf("POST /mcp with Host %s = %d %.200s, want the tool list", host, status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if resp.StatusCode != 200 || !strings.HasPrefix(line, "event: endpoint") {
		t.Fatalf("GET /sse with Host %s = %d, first line %q; want the endpoint event", host, resp.StatusCode, line)
	}
	status, _, body = s.do(t, "POST", "/message?sessionId=nope", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, with(keyed, "Host", host))
	if status == 403 {
		t.Errorf("POST /message with Host %s = 403 %.200s, want it past the Host check", host, body)
	}
}
