package smtp_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-message/mail"

	"github.com/email-mcp/email-mcp/smtp"
)

// FuzzParseAddress: ParseAddress either fails with ErrInvalidArgument or
// gives an address that writes into From, To and Cc without adding a header
// field and reads back unchanged.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{
		"a@example.com", "Ann <a@example.com>", `"Lee, Ann" <a@example.com>`, "=?utf-8?q?J=C3=BCrgen?= <j@x.org>",
		"=?utf-8?q?a=0D=0Ab?= <x@y.z>", "a@example.com\r\nBcc: b@x", "Ünïcödé <u@example.com>", `"a\"b" <q@x.y>`,
		"(comment) a@example.com", "x@[127.0.0.1]", "\t<a@b.c>", "=?utf-8?b?PT9hPz0=?= <z@z.z>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := smtp.ParseAddress(s)
		if err != nil {
			if !errors.Is(err, smtp.ErrInvalidArgument) {
				t.Fatalf("ParseAddress(%q) = %v, want ErrInvalidArgument", s, err)
			}
			return
		}
		m := &smtp.Message{From: a, To: []smtp.Address{a}, Cc: []smtp.Address{a}, Subject: "s", Text: "t"}
		raw := writeFuzz(t, m)
		checkKeys(t, raw, []string{"Date", "From", "To", "Cc", "Subject", "Message-Id", "Mime-Version",
			"Content-Type", "Content-Transfer-Encoding"})
		mr, err := mail.CreateReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("CreateReader() = %v", err)
		}
		from, err := mr.Header.AddressList("From")
		if err != nil || len(from) != 1 || from[0].Address != a.Email || from[0].Name != a.Name {
			t.Fatalf("From = %v, %v; want %+v back (header %q)", from, err, a, mr.Header.Get("From"))
		}
	})
}

// FuzzMessageHeaders: Validate either refuses a message with
// ErrInvalidArgument (and WriteTo writes nothing) or the message writes with
// exactly the expected header fields, its subject reads back, and its
// attachment keeps its name.
func FuzzMessageHeaders(f *testing.F) {
	f.Add("Hello", "Ann", "a@example.com", "report.pdf", "r@example.com")
	f.Add("x\r\nBcc: e@x", "A\nB", "a@example.com", "a\x00.txt", "r@x\n")
	f.Add("=?utf-8?q?x=0D=0AX-Injected:_1?=", "=?utf-8?q?a=0D=0A?=", "b@example.org", "=?utf-8?q?f=0D=0A?=.txt", "<id@x>")
	f.Add("Grüße – Q3 📈 "+strings.Repeat("long ", 30), "Jürgen Müller", "j@example.com", "Rechnung März.pdf", "a@b")
	f.Add(strings.Repeat("x", 200), strings.Repeat("n", 100), "c@example.com", strings.Repeat("é", 120), "c@d")
	f.Fuzz(func(t *testing.T, subject, name, email, filename, ref string) {
		m := &smtp.Message{
			From:        smtp.Address{Name: name, Email: email},
			To:          []smtp.Address{{Name: name, Email: "to@example.com"}},
			Bcc:         []smtp.Address{{Email: "bcc@example.com"}},
			Subject:     subject,
			Text:        "body",
			References:  []string{ref},
			Attachments: []smtp.Attachment{bytesAttachment(filename, []byte("data"))},
		}
		if err := m.Validate(); err != nil {
			if !errors.Is(err, smtp.ErrInvalidArgument) {
				t.Fatalf("Validate() = %v, want ErrInvalidArgument", err)
			}
			if n, err := m.WriteTo(io.Discard); err == nil || n != 0 {
				t.Fatalf("WriteTo() after a failed Validate = %d, %v", n, err)
			}
			return
		}
		raw := writeFuzz(t, m)
		checkKeys(t, raw, []string{"Date", "From", "To", "Subject", "Message-Id", "References", "Mime-Version", "Content-Type"})
		mr, err := mail.CreateReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("CreateReader() = %v", err)
		}
		if got, _ := mr.Header.Subject(); strings.TrimSpace(got) != strings.TrimSpace(subject) {
			t.Errorf("Subject reads back as %q, want %q", got, subject)
		}
		var names []string
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			if h, ok := p.Header.(*mail.AttachmentHeader); ok {
				n, _ := h.Filename()
				names = append(names, n)
			}
		}
		if len(names) != 1 || (names[0] != filename && !strings.Contains(filename, "=?")) {
			t.Errorf("attachment names %q, want [%q]", names, filename)
		}
	})
}

func writeFuzz(t *testing.T, m *smtp.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatalf("WriteTo() of a valid message = %v", err)
	}
	return b.Bytes()
}

// checkKeys asserts the top-level header fields are exactly want.
func checkKeys(t *testing.T, raw []byte, want []string) {
	t.Helper()
	_, keys := topHeader(t, raw)
	if !slices.Equal(keys, want) {
		t.Fatalf("header fields = %q, want %q\n%s", keys, want, raw)
	}
}

// FuzzReplyRecipients: whatever the original's address lists hold, the
// reply's To and Cc come from them, no two share a Key, and our own
// address (any form, +tag included) is there only as the one To of a note
// to self; so a reply never has more recipients than the original has
// distinct addresses.
func FuzzReplyRecipients(f *testing.F) {
	f.Add("a@x", "Me@Example.com", "me+tag@example.com, b@x", "B@X, c@bücher.example, c@xn--bcher-kva.example", true)
	f.Add("", "me@example.com.", "", "", false)
	f.Add("me@example.com", "", "ME@example.com", "", true)
	f.Fuzz(func(t *testing.T, from, replyTo, to, cc string, all bool) {
		list := func(s string) []smtp.Address {
			var out []smtp.Address
			for _, e := range strings.Split(s, ",") {
				out = append(out, smtp.Address{Email: strings.TrimSpace(e)})
			}
			return out
		}
		orig := smtp.Original{From: list(from), ReplyTo: list(replyTo), To: list(to), Cc: list(cc)}
		gotTo, gotCc := smtp.ReplyRecipients(orig, []string{"me@example.com"}, all)
		in := map[string]bool{}
		for _, l := range [][]smtp.Address{orig.From, orig.ReplyTo, orig.To, orig.Cc} {
			for _, a := range l {
				if a.Email != "" {
					in[smtp.Key(a.Email)] = true
				}
			}
		}
		seen := map[string]bool{}
		for i, a := range slices.Concat(gotTo, gotCc) {
			k := smtp.Key(a.Email)
			switch {
			case !in[k]:
				t.Fatalf("recipient %q is not in the original", a.Email)
			case seen[k]:
				t.Fatalf("recipient %q twice in to %v cc %v", a.Email, gotTo, gotCc)
			case isMe(k) && (i != 0 || len(gotTo) != 1):
				t.Fatalf("our own %q in to %v cc %v", a.Email, gotTo, gotCc)
			}
			seen[k] = true
		}
	})
}

func isMe(k string) bool {
	local, domain, _ := strings.Cut(k, "@")
	local, _, _ = strings.Cut(local, "+")
	return local == "me" && domain == "example.com"
}
