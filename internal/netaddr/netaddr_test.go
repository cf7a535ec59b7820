package netaddr_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/internal/netaddr"
)

// TestIsLoopback is the one table for the rule that config (plain-text
// credentials), smtp (AUTH without TLS) and the bench command (its
// loopback guard) share.
func TestIsLoopback(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"127.255.255.255", true},
		{"::1", true},
		{"[::1]", true},
		{"0:0:0:0:0:0:0:1", true},
		{"::1%lo", true},
		{"[::1%lo]", true},
		{"::ffff:127.0.0.1", true},
		{"[::ffff:127.0.0.1]", true},
		{"localhost.", false},
		{"LOCALHOST.", false},
		{"127.0.0.1.", false},
		{"localhost.example.com", false},
		{"127.0.0.1.example.com", false},
		{"evil.localhost", false},
		{"[[::1]]", false},
		{" localhost", false},
		{"127.1", false},
		{"0127.0.0.1", false},
		{"fe80::1%lo", false},
		{"::ffff:10.0.0.1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"10.0.0.1", false},
		{"128.0.0.1", false},
		{"example.com", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := netaddr.IsLoopback(tt.host); got != tt.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
