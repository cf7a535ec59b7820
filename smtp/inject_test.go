package smtp_test

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/smtp"
)

// headerFields sets a payload into each header-bearing field of a message;
// the name is what the error must mention.
var headerFields = []struct {
	name string
	set  func(m *smtp.Message, v string)
}{
	{"subject", func(m *smtp.Message, v string) { m.Subject = "Hi" + v + "X-Injected: 1" }},
	{"from.name", func(m *smtp.Message, v string) { m.From.Name = "Agent" + v + "X-Injected: 1" }},
	{"from.email", func(m *smtp.Message, v string) { m.From.Email = "agent@example.com" + v }},
	{"to[0].name", func(m *smtp.Message, v string) { m.To[0].Name = "Bob" + v + "X-Injected: 1" }},
	{"to[1].email", func(m *smtp.Message, v string) { m.To[1].Email = "carol@example.com" + v + "X-Injected: 1" }},
	{"cc[0].email", func(m *smtp.Message, v string) { m.Cc[0].Email = "dave" + v + "@example.com" }},
	{"bcc[0].name", func(m *smtp.Message, v string) { m.Bcc[0].Name = "Hidden" + v }},
	{"reply_to[0].name", func(m *smtp.Message, v string) {
		m.ReplyTo = []smtp.Address{{Name: "R" + v + "X-Injected: 1", Email: "r@example.com"}}
	}},
	{"in_reply_to", func(m *smtp.Message, v string) { m.InReplyTo = "p@example.com>" + v + "X-Injected: <1@x" }},
	{"references[1]", func(m *smtp.Message, v string) { m.References = []string{"a@example.com", "b@example.com" + v} }},
	{"message_id", func(m *smtp.Message, v string) { m.MessageID = "id" + v + "@example.com" }},
	{"domain", func(m *smtp.Message, v string) { m.Domain = "example.com" + v }},
	{"attachments[0].filename", func(m *smtp.Message, v string) {
		m.Attachments = []smtp.Attachment{bytesAttachment("a"+v+"X-Injected: 1.txt", []byte("x"))}
	}},
	{"attachments[0].content_type", func(m *smtp.Message, v string) {
		a := bytesAttachment("a.txt", []byte("x"))
		a.ContentType = "text/plain" + v + "X-Injected: 1"
		m.Attachments = []smtp.Attachment{a}
	}},
}

func TestHeaderInjectionIsRefused(t *testing.T) {
	payloads := map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n", "NUL": "\x00", "CRLF-space": "\r\n "}
	for _, f := range headerFields {
		for pname, p := range payloads {
			t.Run(f.name+"/"+pname, func(t *testing.T) {
				m := testMessage()
				f.set(m, p)
				err := m.Validate()
				if !errors.Is(err, smtp.ErrInvalidArgument) || !strings.Contains(err.Error(), f.name) {
					t.Fatalf("Validate() = %v, want ErrInvalidArgument naming %q", err, f.name)
				}
				if n, err := m.WriteTo(io.Discard); !errors.Is(err, smtp.ErrInvalidArgument) || n != 0 {
					t.Errorf("WriteTo() = %d, %v; want 0, ErrInvalidArgument", n, err)
				}
			})
		}
	}
}

func TestEncodedInjectionStaysInsideItsField(t *testing.T) {
	payloads := []string{
		"=?utf-8?q?a=0D=0Ab?=",
		"=?utf-8?q?x=0D=0AX-Injected:_1?=",
		"=?utf-8?b?eA0KWC1JbmplY3RlZDogMQ==?=",
		"%0D%0AX-Injected: 1",
		`\r\nX-Injected: 1`,
	}
	textFields := []struct {
		name string
		set  func(m *smtp.Message, v string)
	}{
		{"subject", func(m *smtp.Message, v string) { m.Subject = v }},
		{"from.name", func(m *smtp.Message, v string) { m.From.Name = v }},
		{"to[0].name", func(m *smtp.Message, v string) { m.To[0].Name = v }},
		{"attachment filename", func(m *smtp.Message, v string) {
			m.Attachments = []smtp.Attachment{bytesAttachment(v, []byte("x"))}
		}},
	}
	for _, f := range textFields {
		for _, p := range payloads {
			t.Run(f.name+"/"+p, func(t *testing.T) {
				m := testMessage()
				f.set(m, p)
				if err := m.Validate(); err != nil {
					t.Fatalf("Validate() = %v, want nil (the text is printable)", err)
				}
				raw := write(t, m)
				h, keys := topHeader(t, raw)
				for _, k := range keys {
					if !slices.Contains(allowedTop, k) {
						t.Errorf("unexpected header field %q in %q", k, keys)
					}
				}
				if h.Has("X-Injected") || h.Has("Bcc") {
					t.Error("an encoded payload became a header field")
				}
				_, parts := parse(t, raw)
				for _, p := range parts {
					if strings.Contains(p.typ, "injected") {
						t.Errorf("part %+v carries the payload in its type", p)
					}
				}
			})
		}
	}
}

// allowedTop are the top-level fields WriteTo may write.
var allowedTop = []string{"Date", "From", "Reply-To", "To", "Cc", "Subject", "Message-Id",
	"In-Reply-To", "References", "Mime-Version", "Content-Type", "Content-Transfer-Encoding"}
