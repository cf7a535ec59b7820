package tools_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/tools"
)

// TestSSESessionBoundToKey: a legacy SSE session opened with key A cannot be
// driven (nor told apart from an unknown one) with key B.
func TestSSESessionBoundToKey(t *testing.T) {
	const keyA, keyB = "key-A-0123456789abcdef", "key-B-0123456789abcdef"
	env := newTestEnv(t, tools.Options{})
	ts, err := tools.New(tools.Deps{Mail: env.mail}, tools.Options{CallerID: func(ctx context.Context) string {
		id, _ := auth.KeyID(ctx)
		return id
	}})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{keyA, keyB}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ts.Handler(tools.HTTPOptions{Auth: mw})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Shutdown(context.Background()); srv.Close() })

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
