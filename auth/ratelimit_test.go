package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/auth"
)

func TestRateLimitPerKey(t *testing.T) {
	mw, err := auth.New(auth.Options{AllowedHosts: testHosts, Keys: []string{"key-one-0123456789", "key-two-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	// 1 per minute: a burst of 10, then refused (the bucket refills one token
	// a minute, so even a very slow machine cannot refill it mid-test).
	h := mw(auth.RateLimit(1)(ok))
	call := func(key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/mcp/tools", nil)
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := range 10 {
		if rec := call("key-one-0123456789"); rec.Code != http.StatusNoContent {
			t.Fatalf("request %d = %d, want 204 within the burst", i, rec.Code)
		}
	}
	rec := call("key-one-0123456789")
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), auth.CodeRateLimited) || rec.Header().Get("Retry-After") == "" {
		t.Errorf("request 11 = %d %s Retry-After=%q, want 429 RATE_LIMITED with Retry-After", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
	// Another key has its own bucket.
	if rec := call("key-two-0123456789"); rec.Code != http.StatusNoContent {
		t.Errorf("other key = %d, want 204", rec.Code)
	}
}

func TestRateLimitOff(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := auth.RateLimit(0)(ok)
	for i := range 100 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusNoContent {
			t.Fatalf("request %d = %d with the limit off", i, rec.Code)
		}
	}
}
