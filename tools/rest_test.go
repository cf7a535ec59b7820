package tools_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/tools"
)

func restDo(t testing.TB, env *testEnv, method, path, key, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.http.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func restGet(t testing.TB, env *testEnv, path, key string, want int) string {
	t.Helper()
	code, body := restDo(t, env, http.MethodGet, path, key, "", nil)
	if code != want {
		t.Fatalf("GET %s = %d %s, want %d", path, code, body, want)
	}
	return body
}

// The seed's curl example, verbatim in shape.
const seedCall = `{"method":"tools/call","params":{"name":"list_folders","arguments":{"include_counts":true}}}`

func TestRESTCall(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	env.sendMail(t, "x@example.test", "counted")
	code, body := restDo(t, env, http.MethodPost, "/mcp/call", testKey, seedCall, nil)
	if code != http.StatusOK {
		t.Fatalf("POST /mcp/call = %d %s", code, body)
	}
	var res struct {
		IsError           bool                    `json:"isError"`
		Content           []map[string]any        `json:"content"`
		StructuredContent tools.ListFoldersResult `json:"structuredContent"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	found := false
	for _, f := range res.StructuredContent.Folders {
		if f.Name == "INBOX" && f.Messages != nil && *f.Messages == 1 {
			found = true
		}
	}
	if res.IsError || !found || len(res.Content) != 1 {
		t.Errorf("POST /mcp/call = %s, want INBOX with 1 message", body)
	}
}

func TestRESTEdges(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	cases := []struct {
		name         string
		method, path string
		key, body    string
		hdr          map[string]string
		want         int
		wantIn       string
	}{
		{"tools without key", "GET", "/mcp/tools", "", "", nil, 401, "UNAUTHORIZED"},
		{"tools wrong key", "GET", "/mcp/tools", "nope", "", nil, 401, "UNAUTHORIZED"},
		{"tools", "GET", "/mcp/tools", testKey, "", nil, 200, `"list_folders"`},
		{"call without key", "POST", "/mcp/call", "", seedCall, nil, 401, "UNAUTHORIZED"},
		{"call foreign origin", "POST", "/mcp/call", testKey, seedCall, map[string]string{"Origin": "https://evil.example"}, 403, ""},
		{"mcp foreign origin", "POST", "/mcp", testKey, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Origin": "https://evil.example"}, 403, ""},
		{"mcp without key", "POST", "/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, 401, ""},
		{"sse without key", "GET", "/sse", "", "", nil, 401, ""},
		{"call unknown tool", "POST", "/mcp/call", testKey, `{"method":"tools/call","params":{"name":"nope","arguments":{}}}`, nil, 400, "nope"},
		{"call bad json", "POST", "/mcp/call", testKey, `{"method":`, nil, 400, "BAD_REQUEST"},
		{"call wrong method", "POST", "/mcp/call", testKey, `{"method":"tools/list"}`, nil, 400, "tools/call"},
		{"call oversized", "POST", "/mcp/call", testKey, `{"method":"tools/call","params":{"name":"list_folders","arguments":{"x":"` + strings.Repeat("a", 5<<20) + `"}}}`, nil, 413, "REQUEST_TOO_LARGE"},
		{"health without key", "GET", "/health", "", "", nil, 200, `"status":"ok"`},
		{"ready without key", "GET", "/ready", "", "", nil, 200, `"imap":"ok"`},
		{"key in query", "GET", "/mcp/tools?api_key=" + testKey, "", "", nil, 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := restDo(t, env, tc.method, tc.path, tc.key, tc.body, tc.hdr)
			if code != tc.want || !strings.Contains(body, tc.wantIn) {
				t.Errorf("%s %s = %d %.200s, want %d containing %q", tc.method, tc.path, code, body, tc.want, tc.wantIn)
			}
		})
	}
}

func TestReadyReportsDeadIMAP(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	_ = env.sandbox.Close()
	code, body := restDo(t, env, http.MethodGet, "/ready", "", "", nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"imap":"CONNECTION_`) {
		t.Errorf("GET /ready with the IMAP server down = %d %s, want 503 naming imap", code, body)
	}
	if strings.Contains(body, "127.0.0.1") {
		t.Errorf("GET /ready leaks the host: %s", body)
	}
}
