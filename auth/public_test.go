package auth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/email-mcp/email-mcp/auth"
)

// TestPublic: no key is asked for, every other check of New stays, and a
// key that a client sends anyway does not reach the handler.
func TestPublic(t *testing.T) {
	mw, err := auth.Public(auth.Options{AllowedOrigins: allowedOrigins, AllowedHosts: testHosts})
	if err != nil {
		t.Fatalf("Public() = %v", err)
	}
	var got http.Header
	next := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	for _, tc := range []struct {
		name, target string
		hdr          [][2]string
		want         int
	}{
		{"no key", "/docs", nil, 200},
		{"a key sent anyway", "/docs", h("X-API-Key", keyA, "Authorization", "Bearer "+keyA), 200},
		{"allowed origin", "/docs", h("Origin", "https://app.example.com"), 200},
		{"foreign origin", "/docs", h("Origin", "https://evil.example"), 403},
		{"null origin", "/docs", h("Origin", "null"), 403},
		{"foreign host", "/docs", h("Host", "evil.example"), 403},
		{"key in query", "/docs?api_key=" + keyA, nil, 400},
	} {
		got = nil
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
		for _, kv := range tc.hdr {
			if kv[0] == "Host" {
				req.Host = kv[1]
			}
			req.Header.Set(kv[0], kv[1])
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s: status = %d, want %d", tc.name, rec.Code, tc.want)
		}
		if got != nil && (got.Get("X-API-Key") != "" || got.Get("Authorization") != "") {
			t.Errorf("%s: the handler saw the key headers", tc.name)
		}
	}
	if _, err := auth.Public(auth.Options{AllowedOrigins: []string{"not an origin"}}); err == nil {
		t.Error("Public(bad origin) = nil error")
	}
}
