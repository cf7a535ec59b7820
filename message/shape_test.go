package message_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestShape(t *testing.T) {
	for _, c := range []struct{ name, email, want string }{
		{"Ann", "ann@x.org", "Ann <ann@x.org>"},
		{" ann@x.org ", "ann@x.org", "ann@x.org"},
		{"Bo\u200bb", "", "Bob"},
		{"", "c@x.org", "c@x.org"},
	} {
		if got := message.FormatAddress(c.name, c.email); got != c.want {
			t.Errorf("FormatAddress(%q, %q) = %q, want %q", c.name, c.email, got, c.want)
		}
	}
	addr := func(a message.Address) (string, string) { return a.Name, a.Email }
	many := make([]message.Address, message.MaxAddresses+5)
	for i := range many {
		many[i] = message.Address{Email: "a@x.org"}
	}
	got, total := message.BoundAddresses(many, message.MaxAddresses, false, addr)
	if len(got) != message.MaxAddresses || total == nil || *total != len(many) {
		t.Errorf("BoundAddresses(%d) = %d entries, total %v, want %d and %d", len(many), len(got), total, message.MaxAddresses, len(many))
	}
	if got, total := message.BoundAddresses(many[:2], message.MaxAddresses, true, addr); len(got) != 2 || total == nil || *total != 2 {
		t.Errorf("BoundAddresses(2, cut) = %v, %v, want 2 entries and a total", got, total)
	}
	if s, cut := message.BoundSubject(strings.Repeat("s", message.MaxSubjectChars+1), false); !cut || len(s) > message.MaxSubjectChars+3 {
		t.Errorf("BoundSubject(long) = %d bytes, %v, want it cut", len(s), cut)
	}
	if s, cut := message.BoundSubject("Hi\u202e", true); s != "Hi" || !cut {
		t.Errorf("BoundSubject(hidden, cut) = %q, %v, want \"Hi\", true", s, cut)
	}
	if message.BoundID(strings.Repeat("i", message.MaxIDBytes+1)) != "" || message.BoundLink(strings.Repeat("l", message.MaxLinkBytes+1)) != nil {
		t.Errorf("BoundID/BoundLink kept a value over its bound")
	}
	if message.FirstAddress([]message.Address{}, addr) != "" {
		t.Errorf("FirstAddress(empty) != \"\"")
	}
}
