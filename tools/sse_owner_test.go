package tools_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

// The two API keys of twoKeyServer.
const (
	keyA = "key-A-0123456789abcdef"
	keyB = "key-B-0123456789abcdef"
)

// TestSSESessionBoundToKey: a legacy SSE session opened with key A cannot be
// driven (nor told apart from an unknown one) with key B.
func TestSSESessionBoundToKey(t *testing.T) {
	srv := twoKeyServer(t)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("X-API-Key", keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	endpoint := ""
	sc := bufio.NewScanner(resp.Body)
	for i := 0; i < 10 && endpoint == "" && sc.Scan(); i++ {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, "sessionId=") {
			endpoint = data
		}
	}
	if endpoint == "" {
		t.Fatal("no endpoint event on the SSE stream")
	}
	if !strings.HasPrefix(endpoint, "http") {
		endpoint = srv.URL + endpoint
	}
	post := func(key, url string) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		r.Header.Set("X-API-Key", key)
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return resp.StatusCode, b.String()
	}
	otherStatus, otherBody := post(keyB, endpoint)
	unknownStatus, unknownBody := post(keyB, strings.Split(endpoint, "sessionId=")[0]+"sessionId=0123456789abcdef0123456789abcdef")
	if otherStatus != unknownStatus || otherBody != unknownBody || otherStatus == http.StatusAccepted {
		t.Errorf("key B on A's session = %d %s; unknown session = %d %s; want the same refusal", otherStatus, otherBody, unknownStatus, unknownBody)
	}
	if status, _ := post(keyA, endpoint); status != http.StatusAccepted {
		t.Errorf("key A on its own session = %d, want 202", status)
	}
}

// twoKeyServer serves the tools (inbox toolset with fast progress) behind
// an auth middleware that accepts two keys, as a multi-key deployment does.
func twoKeyServer(t *testing.T) *httptest.Server {
	t.Helper()
	env := newTestEnv(t, tools.Options{})
	ts, err := tools.New(tools.Deps{Mail: env.mail, Inbox: env.mail,
		Inboxes: tools.InboxOptions{Address: "inbox@sandbox.localhost", Sandbox: true, WaitMax: 30 * time.Second, ProgressEvery: 100 * time.Millisecond}},
		tools.Options{CallerID: func(ctx context.Context) string { id, _ := auth.KeyID(ctx); return id }})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{keyA, keyB}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := transport.Handler(ts.Server, transport.Options{Auth: mw})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Shutdown(context.Background()); srv.Close() })
	return srv
}

// TestStatelessMCPHasNoGETStream: /mcp offers no GET stream (405). mcp-go,
// stateless, filed a GET stream under the session id "" and every POST's
// ephemeral session shared its notification channel: one client's stream
// received the progress of another's call. Two concurrent waits, of two
// keys, each get their own progress on their own POST.
func TestStatelessMCPHasNoGETStream(t *testing.T) {
	srv := twoKeyServer(t)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
	req.Header.Set("X-API-Key", keyA)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
		t.Errorf("GET /mcp = %d (Allow %q), want 405 with Allow", resp.StatusCode, resp.Header.Get("Allow"))
	}
	bodies := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, key := range []string{keyA, keyB} {
		_, created := postMCP(t, srv.URL, key, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_inbox","arguments":{}}}`)
		inbox := between(created, `"inbox_id":"`, `"`)
		if inbox == "" {
			t.Fatalf("create_inbox = %.300s", created)
		}
		wg.Go(func() {
			_, body := postMCP(t, srv.URL, key, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_for_email","arguments":{"inbox_id":"`+
				inbox+`","timeout":1},"_meta":{"progressToken":"progress-of-`+key+`"}}}`)
			mu.Lock()
			bodies[key] = body
			mu.Unlock()
		})
	}
	wg.Wait()
	for key, other := range map[string]string{keyA: keyB, keyB: keyA} {
		if !strings.Contains(bodies[key], "progress-of-"+key) || strings.Contains(bodies[key], "progress-of-"+other) {
			t.Errorf("the wait of %s got %d of its progress notifications and %d of the other key's; want some and none",
				key, strings.Count(bodies[key], "progress-of-"+key), strings.Count(bodies[key], "progress-of-"+other))
		}
	}
}

// TestSSEAllowOriginIsTheOrigin: the auth middleware answers an allowed
// cross-origin request with Access-Control-Allow-Origin set to that origin
// (and no CORS header at all without an Origin); mcp-go's /sse handler
// overwrites it with "*".
func TestSSEAllowOriginIsTheOrigin(t *testing.T) {
	srv := twoKeyServer(t)
	for _, origin := range []string{"http://localhost:5173", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
		req.Header.Set("X-API-Key", keyA)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		got := resp.Header.Get("Access-Control-Allow-Origin")
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusOK || got != origin {
			t.Errorf("GET /sse with Origin %q = %d, Access-Control-Allow-Origin %q; want 200 and %q", origin, resp.StatusCode, got, origin)
		}
	}
}
