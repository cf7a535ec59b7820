package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/auth"
)

func TestHost(t *testing.T) {
	tests := []struct {
		name    string
		allowed []string
		host    string
		want    int
	}{
		{"localhost", nil, "localhost:8420", 200},
		{"localhost, upper case, trailing dot", nil, "LOCALHOST.:8420", 200},
		{"IPv4 loopback", nil, "127.0.0.1:8420", 200},
		{"IPv6 loopback", nil, "[::1]:8420", 200},
		{"private IP literal", nil, "10.1.2.3:8420", 200},
		{"IP literal without port", nil, "192.168.1.5", 200},
		{"rebound name", nil, "evil.example:8420", 403},
		{"localhost subdomain", nil, "localhost.evil.example", 403},
		{"name that looks like an IP", nil, "127.0.0.1.evil.example", 403},
		{"empty host", nil, "", 403},
		{"listed name", []string{"mail.example.com"}, "mail.example.com", 200},
		{"listed name, other case and port", []string{"mail.example.com"}, "Mail.Example.COM:443", 200},
		{"listed name, sibling", []string{"mail.example.com"}, "evil.example.com", 403},
		{"wildcard matches a subdomain", []string{"*.example.com"}, "mcp.example.com", 200},
		{"wildcard does not match the apex", []string{"*.example.com"}, "example.com", 403},
		{"wildcard does not match a suffix trick", []string{"*.example.com"}, "evilexample.com", 403},
		{"star accepts any", []string{"*"}, "anything.example", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mw, err := auth.New(auth.Options{Keys: []string{keyA}, AllowedHosts: tt.allowed})
			if err != nil {
				t.Fatalf("New() = %v", err)
			}
			ran := false
			handler := mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Host = tt.host
			req.Header.Set("X-API-Key", keyA)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code != tt.want || ran != (tt.want == 200) {
				t.Fatalf("Host %q: status %d, next ran %v; want %d", tt.host, rec.Code, ran, tt.want)
			}
			if tt.want == 403 && !strings.Contains(rec.Body.String(), auth.CodeForbiddenHost) {
				t.Errorf("body = %s, want code %s", rec.Body, auth.CodeForbiddenHost)
			}
		})
	}
}

func TestHostCheckedBeforeKey(t *testing.T) {
	mw, err := auth.New(auth.Options{Keys: []string{keyA}})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/sse", nil)
	req.Host = "rebound.example"
	rec := httptest.NewRecorder()
	mw(http.NotFoundHandler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("status = %d, want 403 before any key check", rec.Code)
	}
}

func TestBadAllowedHost(t *testing.T) {
	for _, h := range []string{"http://x.example", "x.example:80", "a b", "*.", "*x.example", ".example.com"} {
		if _, err := auth.New(auth.Options{Keys: []string{keyA}, AllowedHosts: []string{h}}); !errors.Is(err, auth.ErrBadHost) {
			t.Errorf("New(AllowedHosts %q) = %v, want ErrBadHost", h, err)
		}
	}
}
