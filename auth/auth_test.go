package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/auth"
)

const (
	keyA = "key-A-0123456789abcdef"
	keyB = "key-B-fedcba9876543210"

	unauthorizedBody = `{"error":{"code":"UNAUTHORIZED","message":"missing or invalid API key"}}`
)

// testHosts allows the Host of httptest.NewRequest.
var testHosts = []string{"example.com"}

var allowedOrigins = []string{"https://app.example.com", "HTTPS://Other.Example.com:8443/"}

// seen is what the next handler observed.
type seen struct {
	ran           bool
	id            string
	idOK          bool
	apiKey, authz string
}

// newHandler wraps a recording handler in the middleware.
func newHandler(t *testing.T, logger *slog.Logger) (http.Handler, *seen) {
	t.Helper()
	mw, err := auth.New(auth.Options{AllowedHosts: testHosts, Keys: []string{keyA, keyB}, AllowedOrigins: allowedOrigins, Logger: logger})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	s := &seen{}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ran = true
		s.id, s.idOK = auth.KeyID(r.Context())
		s.apiKey, s.authz = r.Header.Get("X-API-Key"), r.Header.Get("Authorization")
		_, _ = io.WriteString(w, "ok")
	})
	return mw(next), s
}

// h builds a header list; pairs may repeat a name.
func h(kv ...string) [][2]string {
	var out [][2]string
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, [2]string{kv[i], kv[i+1]})
	}
	return out
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func TestMiddleware(t *testing.T) {
	tests := []struct {
		name    string
		method  string // default GET
		target  string // default /mcp
		host    string
		headers [][2]string
		status  int
		key     string // the key whose id the next handler sees; "" when it must not run
	}{
		{name: "no key", status: 401},
		{name: "X-API-Key right", headers: h("X-API-Key", keyA), status: 200, key: keyA},
		{name: "X-API-Key second key", headers: h("X-API-Key", keyB), status: 200, key: keyB},
		{name: "X-API-Key wrong", headers: h("X-API-Key", "key-A-0123456789abcdeX"), status: 401},
		{name: "X-API-Key empty", headers: h("X-API-Key", ""), status: 401},
		{name: "X-API-Key prefix", headers: h("X-API-Key", keyA[:10]), status: 401},
		{name: "X-API-Key with suffix", headers: h("X-API-Key", keyA+"x"), status: 401},
		{name: "X-API-Key with surrounding space", headers: h("X-API-Key", " \t"+keyA+" "), status: 200, key: keyA},
		{name: "X-API-Key with inner space", headers: h("X-API-Key", keyA[:5]+" "+keyA[5:]), status: 401},
		{name: "X-API-Key twice", headers: h("X-API-Key", keyA, "X-API-Key", keyA), status: 401},
		{name: "lower-case header name", headers: h("x-api-key", keyA), status: 200, key: keyA},
		{name: "Bearer right", headers: h("Authorization", "Bearer "+keyA), status: 200, key: keyA},
		{name: "Bearer wrong", headers: h("Authorization", "Bearer nope"), status: 401},
		{name: "bearer lower-case", headers: h("Authorization", "bearer "+keyB), status: 200, key: keyB},
		{name: "BEARER upper-case", headers: h("Authorization", "BEARER "+keyA), status: 200, key: keyA},
		{name: "Bearer with spaces", headers: h("Authorization", "  Bearer   "+keyA+"  "), status: 200, key: keyA},
		{name: "Bearer without token", headers: h("Authorization", "Bearer"), status: 401},
		{name: "Basic with the key as password", headers: h("Authorization", basic("x", keyA)), status: 401},
		{name: "Basic with the raw key", headers: h("Authorization", "Basic "+keyA), status: 401},
		{name: "key without scheme", headers: h("Authorization", keyA), status: 401},
		{name: "Authorization twice", headers: h("Authorization", "Bearer "+keyA, "Authorization", "Bearer "+keyA), status: 401},
		{name: "both right", headers: h("X-API-Key", keyA, "Authorization", "Bearer "+keyA), status: 200, key: keyA},
		{name: "X-API-Key wins over a wrong Bearer", headers: h("X-API-Key", keyA, "Authorization", "Bearer nope"), status: 200, key: keyA},
		{name: "a wrong X-API-Key is not rescued by Bearer", headers: h("X-API-Key", "nope", "Authorization", "Bearer "+keyA), status: 401},
		{name: "empty X-API-Key falls back to Bearer", headers: h("X-API-Key", "", "Authorization", "Bearer "+keyB), status: 200, key: keyB},
		{name: "X-API-Key with proxy Basic auth", headers: h("X-API-Key", keyA, "Authorization", basic("u", "p")), status: 200, key: keyA},

		{name: "query api_key without header", target: "/mcp?api_key=" + keyA, status: 400},
		{name: "query token with header", target: "/mcp?token=" + keyA, headers: h("X-API-Key", keyA), status: 400},
		{name: "query apikey", target: "/mcp?apikey=x", headers: h("X-API-Key", keyA), status: 400},
		{name: "query key", target: "/mcp?a=1&key=x", headers: h("X-API-Key", keyA), status: 400},
		{name: "query access_token", target: "/sse?access_token=x", headers: h("X-API-Key", keyA), status: 400},
		{name: "query upper-case name", target: "/mcp?API_KEY=x", headers: h("X-API-Key", keyA), status: 400},
		{name: "query key before origin", target: "/mcp?token=x", headers: h("Origin", "https://evil.example"), status: 400},
		{name: "query key before a ;", target: "/mcp?api_key=" + keyA + ";client=cursor", headers: h("X-API-Key", keyA), status: 400},
		{name: "query key after a ;", target: "/mcp?client=cursor;api_key=" + keyA, headers: h("X-API-Key", keyA), status: 400},
		{name: "query key name escaped", target: "/mcp?api%5Fkey=x", headers: h("X-API-Key", keyA), status: 400},
		{name: "empty query key is no key", target: "/mcp?key=", headers: h("X-API-Key", keyA), status: 200, key: keyA},
		{name: "other query parameters", target: "/message?sessionId=abc", headers: h("X-API-Key", keyA), status: 200, key: keyA},

		{name: "allowed origin", headers: h("Origin", "https://app.example.com", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "allowed origin other case", headers: h("Origin", "HTTPS://APP.Example.COM", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "allowed origin default port", headers: h("Origin", "https://app.example.com:443", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "allowed origin with port", headers: h("Origin", "https://other.example.com:8443", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "allowed host on another port", headers: h("Origin", "https://app.example.com:8443", "X-API-Key", keyA), status: 403},
		{name: "allowed host over http", headers: h("Origin", "http://app.example.com", "X-API-Key", keyA), status: 403},
		{name: "localhost origin", headers: h("Origin", "http://localhost:6274", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "127.0.0.1 origin", headers: h("Origin", "http://127.0.0.1:3000", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "127.3.2.1 origin", headers: h("Origin", "https://127.3.2.1", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "[::1] origin", headers: h("Origin", "http://[::1]:3000", "X-API-Key", keyA), status: 200, key: keyA},
		{name: "localhost lookalike", headers: h("Origin", "http://localhost.evil.example", "X-API-Key", keyA), status: 403},
		{name: "loopback host, odd scheme", headers: h("Origin", "ftp://localhost", "X-API-Key", keyA), status: 403},
		{name: "foreign origin with right key", headers: h("Origin", "https://evil.example", "X-API-Key", keyA), status: 403},
		{name: "foreign origin without key", headers: h("Origin", "https://evil.example"), status: 403},
		{name: "null origin", headers: h("Origin", "null", "X-API-Key", keyA), status: 403},
		{name: "origin with a path", headers: h("Origin", "https://app.example.com/x", "X-API-Key", keyA), status: 403},
		{name: "two origins", headers: h("Origin", "https://app.example.com", "Origin", "https://evil.example", "X-API-Key", keyA), status: 403},
		{name: "DNS rebinding: origin equals host", host: "evil.example:8420",
			headers: h("Origin", "http://evil.example:8420", "X-API-Key", keyA), status: 403},
		{name: "DNS rebinding: rebound name, no origin", host: "evil.example:8420",
			headers: h("X-API-Key", keyA), status: 403},
		{name: "preflight from allowed origin needs no key", method: http.MethodOptions,
			headers: h("Origin", "https://app.example.com", "Access-Control-Request-Method", "POST"), status: 204},
		{name: "preflight from loopback origin", method: http.MethodOptions,
			headers: h("Origin", "http://localhost:5173", "Access-Control-Request-Method", "POST"), status: 204},
		{name: "preflight from foreign origin", method: http.MethodOptions,
			headers: h("Origin", "https://evil.example", "Access-Control-Request-Method", "POST"), status: 403},
		{name: "OPTIONS that is no preflight needs a key", method: http.MethodOptions, status: 401},
		{name: "POST with key", method: http.MethodPost, headers: h("X-API-Key", keyA), status: 200, key: keyA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handler, s := newHandler(t, nil)
			method, target := tt.method, tt.target
			if method == "" {
				method = http.MethodGet
			}
			if target == "" {
				target = "/mcp"
			}
			req := httptest.NewRequest(method, target, nil)
			if tt.host != "" {
				req.Host = tt.host
			}
			for _, kv := range tt.headers {
				req.Header.Add(kv[0], kv[1])
			}
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d (body %s)", rec.Code, tt.status, rec.Body)
			}
			checkNext(t, s, tt.key)
			checkBody(t, rec)
		})
	}
}

// checkNext asserts whether the next handler ran, with which key id, and
// that it saw no key header.
func checkNext(t *testing.T, s *seen, key string) {
	t.Helper()
	if s.ran != (key != "") {
		t.Fatalf("next handler ran = %v, want %v", s.ran, key != "")
	}
	if !s.ran {
		return
	}
	if !s.idOK || s.id != auth.IDOf(key) {
		t.Errorf("KeyID() = %q, %v, want %q, true", s.id, s.idOK, auth.IDOf(key))
	}
	if s.apiKey != "" || s.authz != "" {
		t.Errorf("next handler saw X-API-Key %q, Authorization %q; want both removed", s.apiKey, s.authz)
	}
}

// checkBody asserts the JSON error answer of each refusal status.
func checkBody(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	wantCode := map[int]string{401: auth.CodeUnauthorized, 400: auth.CodeKeyInQuery, 403: auth.CodeForbiddenOrigin}[rec.Code]
	if rec.Code == 403 && strings.Contains(rec.Body.String(), auth.CodeForbiddenHost) {
		wantCode = auth.CodeForbiddenHost // TestHost checks which 403 each request gets
	}
	if wantCode == "" {
		return
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var body struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != wantCode || body.Error.Message == "" {
		t.Errorf("body = %s (%v), want error code %s with a message", rec.Body, err, wantCode)
	}
	if rec.Code == 401 {
		if rec.Body.String() != unauthorizedBody {
			t.Errorf("401 body = %s, want %s", rec.Body, unauthorizedBody)
		}
		if got := rec.Header().Get("WWW-Authenticate"); got != "Bearer" {
			t.Errorf("WWW-Authenticate = %q, want Bearer", got)
		}
	}
	if strings.Contains(rec.Body.String(), keyA) || strings.Contains(rec.Body.String(), keyB) {
		t.Errorf("body %s shows a key", rec.Body)
	}
}

func TestMissingAndWrongKeyAnswerAlike(t *testing.T) {
	handler, _ := newHandler(t, nil)
	answer := func(headers ...string) (int, http.Header, string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		for _, kv := range h(headers...) {
			req.Header.Add(kv[0], kv[1])
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec.Code, rec.Header(), rec.Body.String()
	}
	code0, head0, body0 := answer()
	for _, headers := range [][]string{
		{"X-API-Key", "wrong"},
		{"Authorization", "Bearer wrong"},
		{"Authorization", basic("u", "p")},
		{"X-API-Key", keyA, "X-API-Key", keyB},
	} {
		code, head, body := answer(headers...)
		if code != code0 || body != body0 || !equalHeaders(head, head0) {
			t.Errorf("%q answers %d %v %s; missing key answers %d %v %s", headers, code, head, body, code0, head0, body0)
		}
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if strings.Join(a.Values(k), "\n") != strings.Join(b.Values(k), "\n") {
			return false
		}
	}
	return true
}

func TestCORSHeaders(t *testing.T) {
	handler, _ := newHandler(t, nil)
	tests := []struct {
		name, method, origin string
		headers              [][2]string
		wantAllow            string
	}{
		{"preflight", http.MethodOptions, "https://app.example.com", h("Access-Control-Request-Method", "POST"), "https://app.example.com"},
		{"request with key", http.MethodPost, "http://localhost:6274", h("X-API-Key", keyA), "http://localhost:6274"},
		{"401 is readable by the allowed page", http.MethodPost, "https://app.example.com", nil, "https://app.example.com"},
		{"no origin, no CORS", http.MethodPost, "", h("X-API-Key", keyA), ""},
		{"foreign origin, no CORS", http.MethodPost, "https://evil.example", h("X-API-Key", keyA), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "/mcp", nil)
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			for _, kv := range tt.headers {
				req.Header.Add(kv[0], kv[1])
			}
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tt.wantAllow {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantAllow)
			}
			if tt.method == http.MethodOptions {
				allowed := rec.Header().Get("Access-Control-Allow-Headers")
				for _, want := range []string{"Authorization", "X-API-Key", "Mcp-Session-Id", "Mcp-Protocol-Version"} {
					if !strings.Contains(allowed, want) {
						t.Errorf("Access-Control-Allow-Headers = %q, want %s in it", allowed, want)
					}
				}
			}
		})
	}
}

func TestRefusalsAreLoggedWithoutKey(t *testing.T) {
	var logs bytes.Buffer
	handler, _ := newHandler(t, slog.New(slog.NewJSONHandler(&logs, nil)))
	requests := []struct {
		target  string
		headers [][2]string
		reason  string
	}{
		{"/mcp?api_key=" + keyA, h("X-API-Key", keyA), "api key in query string"},
		{"/mcp", h("X-API-Key", keyA+"-wrong"), "wrong api key"},
		{"/mcp", h("Authorization", "Bearer "+keyB+"-wrong"), "wrong api key"},
		{"/mcp", nil, "missing api key"},
		{"/mcp", h("Authorization", basic(keyA, keyB)), "authorization scheme is not Bearer"},
		{"/mcp", h("Origin", "https://evil.example", "X-API-Key", keyA), "origin not allowed"},
	}
	for _, r := range requests {
		req := httptest.NewRequest(http.MethodGet, r.target, nil)
		req.RemoteAddr = "192.0.2.7:5555"
		for _, kv := range r.headers {
			req.Header.Add(kv[0], kv[1])
		}
		handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != len(requests) {
		t.Fatalf("%d log lines, want one per refusal:\n%s", len(lines), logs.String())
	}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["reason"] != requests[i].reason || rec["remote"] != "192.0.2.7:5555" || rec["path"] != "/mcp" {
			t.Errorf("log line %s, want reason %q, remote and path", line, requests[i].reason)
		}
	}
	enc := base64.StdEncoding.EncodeToString
	for _, secret := range []string{keyA, keyB, enc([]byte(keyA + ":" + keyB)), "api_key="} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs show %q:\n%s", secret, logs.String())
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		opts auth.Options
		want error
	}{
		{"fine", auth.Options{AllowedHosts: testHosts, Keys: []string{keyA}, AllowedOrigins: []string{"https://a.example", "vscode-webview://x1"}}, nil},
		{"no keys", auth.Options{}, auth.ErrNoKeys},
		{"empty key", auth.Options{AllowedHosts: testHosts, Keys: []string{keyA, ""}}, auth.ErrInvalidKey},
		{"key with space", auth.Options{AllowedHosts: testHosts, Keys: []string{"a b"}}, auth.ErrInvalidKey},
		{"key with newline", auth.Options{AllowedHosts: testHosts, Keys: []string{"ab\n"}}, auth.ErrInvalidKey},
		{"wildcard origin", auth.Options{AllowedHosts: testHosts, Keys: []string{keyA}, AllowedOrigins: []string{"*"}}, auth.ErrBadOrigin},
		{"origin with path", auth.Options{AllowedHosts: testHosts, Keys: []string{keyA}, AllowedOrigins: []string{"https://a.example/app"}}, auth.ErrBadOrigin},
		{"bare host", auth.Options{AllowedHosts: testHosts, Keys: []string{keyA}, AllowedOrigins: []string{"a.example"}}, auth.ErrBadOrigin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mw, err := auth.New(tt.opts)
			if !errors.Is(err, tt.want) || (err == nil) != (mw != nil) {
				t.Fatalf("New() = %v, %v, want error %v", mw != nil, err, tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), keyA) || strings.Contains(err.Error(), "a b")) {
				t.Errorf("New() error %q shows a key", err)
			}
		})
	}
}

func TestKeyID(t *testing.T) {
	if id, ok := auth.KeyID(context.Background()); ok || id != "" {
		t.Errorf("KeyID(empty context) = %q, %v, want \"\", false", id, ok)
	}
	a, b := auth.IDOf(keyA), auth.IDOf(keyB)
	if len(a) != 8 || a == b || strings.Contains(keyA, a) {
		t.Errorf("IDOf() = %q and %q, want two different 8-digit ids", a, b)
	}
}

// TestOverTheWire runs the middleware behind a real server on loopback, so
// that net/http parses the headers as it does in production.
func TestOverTheWire(t *testing.T) {
	handler, s := newHandler(t, nil)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	tests := []struct {
		name    string
		headers [][2]string
		status  int
	}{
		{"right key", h("X-API-Key", keyA), 200},
		{"wrong key", h("X-API-Key", "nope"), 401},
		{"bearer", h("Authorization", "bearer "+keyB), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			*s = seen{}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/mcp", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.headers {
				req.Header.Add(kv[0], kv[1])
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tt.status || s.ran != (tt.status == 200) {
				t.Errorf("status %d (ran %v, body %s), want %d", resp.StatusCode, s.ran, body, tt.status)
			}
			if tt.status == 401 && string(body) != unauthorizedBody {
				t.Errorf("body = %s, want %s", body, unauthorizedBody)
			}
		})
	}
}

// TestRefusalLogHidesKeyInPath: a key that reaches the server in the URL
// path (an escaped "?", a ";" parameter, a segment of its own) is refused,
// and the refusal log line does not quote it (it did).
func TestRefusalLogHidesKeyInPath(t *testing.T) {
	for _, target := range []string{
		"/mcp%3Fapi_key=" + keyA, // URL-escaped query: r.URL.Path is "/mcp?api_key=<key>"
		"/mcp;api_key=" + keyA,
		"/mcp/" + keyA,
	} {
		t.Run(target, func(t *testing.T) {
			var logs bytes.Buffer
			handler, s := newHandler(t, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
			req := httptest.NewRequest(http.MethodPost, target, nil)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if s.ran || rec.Code != http.StatusUnauthorized {
				t.Fatalf("status %d ran %v, want a 401 refusal", rec.Code, s.ran)
			}
			if strings.Contains(logs.String(), keyA) {
				t.Errorf("refusal log shows the API key:\n%s", logs.String())
			}
		})
	}
}
