package tools_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

// docsServer serves env's tools with the documentation open (auth.Public),
// as cmd wires it.
func docsServer(t *testing.T, env *testEnv) *httptest.Server {
	t.Helper()
	mw, err := auth.New(auth.Options{Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := auth.Public(auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := transport.Handler(env.tools.Server, transport.Options{Auth: mw, Public: pub})
	if err != nil {
		t.Fatalf("Handler() = %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		srv.Close()
	})
	return srv
}

func fetch(t *testing.T, srv *httptest.Server, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// goldenToolNames are the names in the golden tools/list file.
func goldenToolNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/tools_list.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range g.Tools {
		names = append(names, tool.Name)
	}
	return names
}

var (
	tag     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	urlAttr = regexp.MustCompile(`(?i)\s(src|href|action|srcset|poster|data|formaction)\s*=\s*["']?([^"' >]*)`)
	onAttr  = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	cssURL  = regexp.MustCompile(`(?i)url\(|@import`)
)

// TestDocsPage: /docs renders without a key and without the network: no
// script, no URL outside the page's own origin, a CSP that forbids scripts,
// and a section with arguments, result keys and a curl example per tool.
func TestDocsPage(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	srv := docsServer(t, env)
	resp, page := fetch(t, srv, "/docs", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy = %q, want default-src 'none' and no script-src or unsafe-inline", csp)
	}
	tags := strings.Join(tag.FindAllString(page, -1), "\n")
	if strings.Contains(strings.ToLower(page), "<script") || onAttr.MatchString(tags) {
		t.Error("/docs has a script or an event handler attribute")
	}
	if cssURL.MatchString(page) {
		t.Error("/docs's style loads something (url( or @import)")
	}
	own, _ := url.Parse(srv.URL + "/docs")
	for _, m := range urlAttr.FindAllStringSubmatch(tags, -1) {
		u, err := url.Parse(m[2])
		if err != nil {
			t.Errorf("%s=%q does not parse: %v", m[1], m[2], err)
			continue
		}
		if abs := own.ResolveReference(u); abs.Scheme+"://"+abs.Host != srv.URL {
			t.Errorf("%s=%q leaves the page's origin", m[1], m[2])
		}
	}
	for _, name := range goldenToolNames(t) {
		if !strings.Contains(page, `<section id="`+name+`">`) || !strings.Contains(page, `id="curl-`+name+`"`) {
			t.Errorf("/docs has no section with a curl example for %s", name)
		}
	}
	for _, want := range []string{"<th>default</th>", "<th>bounds</th>", "<th>required</th>", "<th>result key</th>",
		"<code>max_chars</code>", "1–500000", "readOnly: true", "INVALID_ARGUMENT"} {
		if !strings.Contains(page, want) {
			t.Errorf("/docs lacks %q", want)
		}
	}
}

// TestOpenAPIJSON: /openapi.json is OpenAPI 3.1 with one /mcp/call body per
// served tool (the golden's), each with the tool's input schema, one result
// per tool with its output schema, and both security schemes.
func TestOpenAPIJSON(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	srv := docsServer(t, env)
	resp, body := fetch(t, srv, "/openapi.json", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /openapi.json = %d %s", resp.StatusCode, body)
	}
	var doc struct {
		OpenAPI    string                    `json:"openapi"`
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas         map[string]json.RawMessage `json:"schemas"`
			SecuritySchemes map[string]map[string]any  `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	for _, p := range []string{"/mcp/tools", "/mcp/call", "/health", "/ready"} {
		if doc.Paths[p] == nil {
			t.Errorf("paths lacks %s", p)
		}
	}
	if k := doc.Components.SecuritySchemes["apiKey"]; k["in"] != "header" || k["name"] != "X-API-Key" {
		t.Errorf("apiKey scheme = %v", k)
	}
	if b := doc.Components.SecuritySchemes["bearer"]; b["scheme"] != "bearer" {
		t.Errorf("bearer scheme = %v", b)
	}
	listed := listedSchemas(t, env)
	for _, name := range goldenToolNames(t) {
		var call struct {
			Properties struct {
				Params struct {
					Properties struct {
						Name      map[string]any  `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					} `json:"properties"`
				} `json:"params"`
			} `json:"properties"`
		}
		var result struct {
			Properties struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(doc.Components.Schemas["call_"+name], &call)
		_ = json.Unmarshal(doc.Components.Schemas["result_"+name], &result)
		if call.Properties.Params.Properties.Name["const"] != name {
			t.Errorf("call_%s: params.name is not const %q", name, name)
		}
		if !sameJSON(call.Properties.Params.Properties.Arguments, listed[name][0]) {
			t.Errorf("call_%s: arguments schema differs from tools/list's inputSchema", name)
		}
		if !sameJSON(result.Properties.StructuredContent, listed[name][1]) {
			t.Errorf("result_%s: structuredContent schema differs from tools/list's outputSchema", name)
		}
	}
}

// listedSchemas are tools/list's input and output schemas by tool name.
func listedSchemas(t *testing.T, env *testEnv) map[string][2]json.RawMessage {
	t.Helper()
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(restGet(t, env, "/mcp/tools", testKey, 200)), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]json.RawMessage{}
	for _, tool := range list.Tools {
		out[tool.Name] = [2]json.RawMessage{tool.InputSchema, tool.OutputSchema}
	}
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestDocsFollowServedTools: read-only mode and toolsets change the
// documentation as they change tools/list.
func TestDocsFollowServedTools(t *testing.T) {
	env := newTestEnv(t, tools.Options{ReadOnly: true, Toolsets: []string{tools.ToolsetMail}})
	srv := docsServer(t, env)
	_, page := fetch(t, srv, "/docs", nil)
	_, spec := fetch(t, srv, "/openapi.json", nil)
	served := env.tools.ToolNames()
	for _, name := range goldenToolNames(t) {
		want := slices.Contains(served, name)
		if got := strings.Contains(page, `<section id="`+name+`">`); got != want {
			t.Errorf("read-only mail docs: section %s = %v, want %v", name, got, want)
		}
		if got := strings.Contains(spec, `"call_`+name+`"`); got != want {
			t.Errorf("read-only mail openapi.json: call_%s = %v, want %v", name, got, want)
		}
	}
	if !strings.Contains(page, "Read-only mode") {
		t.Error("read-only docs do not say so")
	}
}

// TestDocsAccess: the documentation needs no key but keeps the Host,
// Origin and query-key checks; without transport.Options.Public it is behind Auth.
func TestDocsAccess(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	srv := docsServer(t, env)
	for _, tc := range []struct {
		name, path string
		hdr        map[string]string
		want       int
	}{
		{"no key", "/docs", nil, 200},
		{"no key, spec", "/openapi.json", nil, 200},
		{"foreign origin", "/docs", map[string]string{"Origin": "https://evil.example"}, 403},
		{"foreign host", "/openapi.json", map[string]string{"Host": "evil.example"}, 403},
		{"key in query", "/docs?api_key=" + testKey, nil, 400},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		for k, v := range tc.hdr {
			if k == "Host" {
				req.Host = v
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: GET %s = %d, want %d", tc.name, tc.path, resp.StatusCode, tc.want)
		}
	}
	// newTestEnv's handler has no Public: the documentation asks for the key.
	if code, _ := restDo(t, env, http.MethodGet, "/docs", "", "", nil); code != http.StatusUnauthorized {
		t.Errorf("without Public: GET /docs = %d, want 401", code)
	}
	restGet(t, env, "/openapi.json", testKey, 200)
}

// TestDocsCurlExamples: each tool's curl example on /docs names its tool,
// reads the key from $MCP_API_KEY and posts a body that /mcp/call answers
// with a CallToolResult (not a 4xx) on the sandbox.
func TestDocsCurlExamples(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	srv := docsServer(t, env)
	_, page := fetch(t, srv, "/docs", nil)
	body := regexp.MustCompile(`(?s)<pre class="curl" id="curl-([a-z_]+)">.*?-d &#39;(.*?)&#39; \\`)
	seen := 0
	for _, m := range body.FindAllStringSubmatch(page, -1) {
		seen++
		name, call := m[1], html.UnescapeString(m[2])
		if strings.HasPrefix(name, "wait_for_") {
			continue // they block for their timeout when the inbox exists; their bodies are checked by the e2e validator
		}
		code, res := restDo(t, env, http.MethodPost, "/mcp/call", testKey, call, nil)
		if code != 200 || !strings.Contains(res, `"structuredContent"`) {
			t.Errorf("%s: example %s = %d %s", name, call, code, res)
		}
		// send_email_with_attachments: its placeholder file does not exist;
		// send_draft: message 1 of this account is not a draft with recipients.
		if strings.Contains(res, "INVALID_ARGUMENT") && name != "send_email_with_attachments" && name != "send_draft" {
			t.Errorf("%s: example %s answers %s", name, call, res)
		}
	}
	if want := len(goldenToolNames(t)); seen != want {
		t.Errorf("/docs has %d tool curl examples, want %d", seen, want)
	}
	if !strings.Contains(page, `curl -sS -H &#34;X-API-Key: $MCP_API_KEY&#34;`) {
		t.Error("the curl examples do not read the key from $MCP_API_KEY")
	}
	if strings.Contains(page, testKey) {
		t.Error("/docs shows the API key")
	}
}

// BenchmarkDocs measures rendering /docs and /openapi.json (all tools):
// both are built per request from tools/list.
func BenchmarkDocs(b *testing.B) {
	env := newTestEnv(b, tools.Options{})
	mw, _ := auth.New(auth.Options{Keys: []string{testKey}})
	pub, _ := auth.Public(auth.Options{})
	h, err := transport.Handler(env.tools.Server, transport.Options{Auth: mw, Public: pub})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/docs", "/openapi.json"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec, req := httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil)
				req.Host = "127.0.0.1:8420"
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("GET %s = %d", path, rec.Code)
				}
				b.SetBytes(int64(rec.Body.Len()))
			}
		})
	}
}
