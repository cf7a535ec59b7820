package smtp_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

func TestForwardSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello", "Fwd: Hello"},
		{"Fwd: Hello", "Fwd: Hello"},
		{"Fwd: Fwd: Hello", "Fwd: Hello"},
		{"FW: Hello", "Fwd: Hello"},
		{"Fw: WG: fwd:Hello", "Fwd: Hello"},
		{"TR: Hello", "Fwd: Hello"},
		{"Re: Hello", "Fwd: Re: Hello"},
		{"Fwd: Re: Fwd: Hello", "Fwd: Re: Fwd: Hello"},
		{"[Fwd: Hello]", "Fwd: [Fwd: Hello]"},
		{"Forward planning", "Fwd: Forward planning"},
		{"  fwd :  Hello ", "Fwd: Hello"},
		{"", "Fwd:"},
	}
	for _, tt := range tests {
		if got := smtp.ForwardSubject(tt.in); got != tt.want {
			t.Errorf("ForwardSubject(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestForwardBlock(t *testing.T) {
	got := smtp.ForwardBlock(smtp.ForwardedHeader{
		From: smtp.Address{Name: "Alice", Email: "alice@example.test"}, Date: time.Date(2024, 3, 19, 10, 30, 0, 0, time.UTC),
		Subject: "Plans\r\nBcc: evil@example.test", To: []smtp.Address{{Email: "bob@example.test"}},
	}, "Body text\n")
	want := "---------- Forwarded message ---------\nFrom: Alice <alice@example.test>\nDate: Tue, 19 Mar 2024 10:30:00 +0000\n" +
		"Subject: Plans  Bcc: evil@example.test\nTo: <bob@example.test>\n\nBody text\n"
	if got != want {
		t.Errorf("ForwardBlock() = %q, want %q", got, want)
	}
}

// TestEmbeddedMessageUnchanged: an Embedded message/rfc822 attachment is
// written byte for byte, not base64, and Size still matches what WriteTo
// writes; without Embedded (a .eml upload) it stays base64.
func TestEmbeddedMessageUnchanged(t *testing.T) {
	orig := []byte("From: a@example.test\r\nSubject: inner\r\n\r\nline one\r\nline two with =3D and \xc3\xa9\r\n")
	m := testMessage()
	a := bytesAttachment("inner.eml", orig)
	a.ContentType = "message/rfc822"
	m.Attachments = []smtp.Attachment{a}
	if raw := write(t, m); bytes.Contains(raw, orig) {
		t.Errorf("message/rfc822 without Embedded is not base64")
	}
	m = testMessage()
	a.Embedded = true
	m.Attachments = []smtp.Attachment{a}
	raw := write(t, m)
	if !bytes.Contains(raw, orig) || strings.Contains(string(raw), "Content-Transfer-Encoding: base64") {
		t.Errorf("the embedded message is not carried as it is:\n%s", raw)
	}
	if size, err := m.Size(); err != nil || size != int64(len(raw)) {
		t.Errorf("Size() = %d, %v; want %d", size, err, len(raw))
	}
}
