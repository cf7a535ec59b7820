package smtp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/smtp"
)

func TestRawRemovesBcc(t *testing.T) {
	cases := []struct{ in, want string }{
		{"From: a@x.test\r\nBcc: s@x.test,\r\n t@x.test\r\nTo: b@x.test\r\n\r\nBcc: body stays\r\n",
			"From: a@x.test\r\nTo: b@x.test\r\n\r\nBcc: body stays\r\n"},
		{"BCC : s@x.test\nSubject: s\n\nbody", "Subject: s\n\nbody"},
		{"From: a@x.test\r\nX-Bcc: keep\r\nBccx: keep\r\n\r\n", "From: a@x.test\r\nX-Bcc: keep\r\nBccx: keep\r\n\r\n"},
		{"Subject: ümlaut\r\n\r\nb", "Subject: ümlaut\r\n\r\nb"},
	}
	for _, c := range cases {
		r, err := smtp.NewRaw([]byte(c.in))
		if err != nil {
			t.Fatalf("NewRaw(%q) = %v", c.in, err)
		}
		var b strings.Builder
		n, err := r.WriteTo(&b)
		size, _ := r.Size()
		if err != nil || b.String() != c.want || n != size || int64(len(c.want)) != size {
			t.Errorf("NewRaw(%q) writes %q (%d, size %d, %v), want %q", c.in, b.String(), n, size, err, c.want)
		}
	}
	for _, bad := range []string{"", "no header end\r\n", "\r\nbody only"} {
		if _, err := smtp.NewRaw([]byte(bad)); !errors.Is(err, smtp.ErrInvalidArgument) {
			t.Errorf("NewRaw(%q) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestDraftWritesBcc(t *testing.T) {
	m := &smtp.Message{From: smtp.Address{Email: "a@x.test"}, Bcc: []smtp.Address{{Email: "s@x.test"}}, Subject: "s", Text: "b", Draft: true}
	var b strings.Builder
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\r\nBcc: <s@x.test>\r\n") && !strings.Contains(b.String(), "\r\nBcc: s@x.test\r\n") {
		t.Errorf("draft lacks its Bcc:\n%s", b.String())
	}
	empty := &smtp.Message{From: smtp.Address{Email: "a@x.test"}, Draft: true}
	if err := empty.Validate(); err != nil {
		t.Errorf("a draft without recipients: Validate() = %v, want nil", err)
	}
	m.Draft = false
	b.Reset()
	if _, err := m.WriteTo(&b); err != nil || strings.Contains(strings.ToLower(b.String()), "bcc") {
		t.Errorf("a message to send wrote its Bcc (%v):\n%s", err, b.String())
	}
}
