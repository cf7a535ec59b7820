package message_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

func TestParseHeaderPrefix(t *testing.T) {
	raw := readEML(t, "gmail-alternative.eml")
	headerEnd := bytes.Index(raw, []byte("\r\n\r\n"))
	subject := bytes.Index(raw, []byte("Subject:"))
	tests := []struct {
		name    string
		cut     int
		subject string
		from    bool
		msgID   string
	}{
		{"middle of the body", headerEnd + 200, "Re: Lunch on Thursday?", true, "CAF9aBcD+eFgH1jK2LmNoPqRsTuVwXyZ0123456789@mail.gmail.com"},
		{"right after the blank line", headerEnd + 4, "Re: Lunch on Thursday?", true, "CAF9aBcD+eFgH1jK2LmNoPqRsTuVwXyZ0123456789@mail.gmail.com"},
		{"before the blank line", headerEnd, "Re: Lunch on Thursday?", true, "CAF9aBcD+eFgH1jK2LmNoPqRsTuVwXyZ0123456789@mail.gmail.com"},
		{"middle of the Subject line", subject + 12, "", true, "CAF9aBcD+eFgH1jK2LmNoPqRsTuVwXyZ0123456789@mail.gmail.com"},
		{"middle of the Received field", 120, "", false, ""},
	}
	for _, tc := range tests {
		h, err := message.ParseHeader(raw[:tc.cut])
		if err != nil {
			t.Errorf("%s: ParseHeader() = %v, want nil", tc.name, err)
			continue
		}
		if h.Subject != tc.subject || (len(h.From) == 1) != tc.from || h.MessageID != tc.msgID {
			t.Errorf("%s: ParseHeader() = subject %q, from %v, id %q; want %q, %v, %q",
				tc.name, h.Subject, h.From, h.MessageID, tc.subject, tc.from, tc.msgID)
		}
	}
}

// TestParseHeaderEveryPrefix cuts every testdata file at every offset in
// its header (and a few in the body): no panic, valid UTF-8, and fields
// never longer than in the whole message.
func TestParseHeaderEveryPrefix(t *testing.T) {
	for name := range emlCases {
		raw := readEML(t, name)
		whole, _ := message.ParseHeader(raw)
		end := min(len(raw), bytes.Index(raw, []byte("\r\n\r\n"))+64)
		for cut := 0; cut <= end; cut++ {
			h, _ := message.ParseHeader(raw[:cut])
			if !utf8.ValidString(h.Subject) || len(h.Subject) > len(whole.Subject) {
				t.Fatalf("%s[:%d]: Subject = %q, whole %q", name, cut, h.Subject, whole.Subject)
			}
			if len(h.From) > 0 && h.From[0] != whole.From[0] {
				t.Fatalf("%s[:%d]: From = %+v, whole %+v", name, cut, h.From, whole.From)
			}
		}
	}
}

func TestParseHeaderCases(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want message.Header
	}{
		{
			name: "mbox From line and a line without colon are skipped",
			raw:  "From alice@example.com Mon Jan  1 00:00:00 2024\r\nSubject: hi\r\ngarbage line\r\nFrom: a@example.com\r\n\r\nbody",
			want: message.Header{Subject: "hi", From: []message.Address{{Email: "a@example.com"}}},
		},
		{
			name: "LF line endings and folding",
			raw:  "Subject: a long\n  folded subject\nMessage-ID:\n <id@x>\n\n",
			want: message.Header{Subject: "a long folded subject", MessageID: "id@x"},
		},
		{
			name: "raw latin-1 bytes decoded with the declared charset",
			raw:  "Subject: Gr\xfc\xdfe\r\nContent-Type: text/plain; charset=iso-8859-15\r\n\r\n",
			want: message.Header{Subject: "Grüße"},
		},
		{
			name: "raw 8-bit bytes without a charset read as windows-1252",
			raw:  "Subject: \x93quoted\x94 \x80 5\r\n\r\n",
			want: message.Header{Subject: "“quoted” € 5"},
		},
		{
			name: "unknown charset in an encoded word keeps its bytes",
			raw:  "Subject: =?x-unknown?Q?caf=C3=A9?= ok\r\n\r\n",
			want: message.Header{Subject: "café ok"},
		},
		{
			name: "malformed encoded word stays as written",
			raw:  "Subject: =?utf-8?Q?broken\r\n\r\n",
			want: message.Header{Subject: "=?utf-8?Q?broken"},
		},
		{
			name: "control characters in a decoded subject become blanks",
			raw:  "Subject: =?utf-8?Q?a=0Db=00c=09d?=\r\n\r\n",
			want: message.Header{Subject: "a b c d"},
		},
		{
			name: "message ids without brackets and duplicates",
			raw:  "Message-ID: bare-id@x\r\nReferences: <a@x> <b@x>\r\n <a@x>\r\nIn-Reply-To: b@x\r\n\r\n",
			want: message.Header{MessageID: "bare-id@x", References: []string{"a@x", "b@x"}, InReplyTo: []string{"b@x"}},
		},
		{
			name: "several To fields are one list; Reply-To and Sender",
			raw:  "To: a@x\r\nTo: B <b@x>\r\nReply-To: \"R, S\" <r@x>\r\nSender: s@x\r\n\r\n",
			want: message.Header{
				To:      []message.Address{{Email: "a@x"}, {Name: "B", Email: "b@x"}},
				ReplyTo: []message.Address{{Name: "R, S", Email: "r@x"}},
				Sender:  []message.Address{{Email: "s@x"}},
			},
		},
		{
			name: "addresses salvaged from a broken list",
			raw:  "From: Name Only\r\nTo: <a@x>>, b@x (Bee), \"Unbalanced <c@x>, d@@x\r\n\r\n",
			want: message.Header{
				From: []message.Address{{Name: "Name Only"}},
				To:   []message.Address{{Email: "a@x"}, {Name: "Bee", Email: "b@x"}, {Name: "Unbalanced", Email: "c@x"}, {Email: "d@@x"}},
			},
		},
	}
	for _, tc := range tests {
		got, err := message.ParseHeader([]byte(tc.raw))
		if err != nil || !equalHeader(got, tc.want) {
			t.Errorf("%s: ParseHeader() = %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
	}
}

func equalHeader(a, b message.Header) bool {
	return a.Subject == b.Subject && slices.Equal(a.From, b.From) && slices.Equal(a.To, b.To) &&
		slices.Equal(a.Cc, b.Cc) && slices.Equal(a.ReplyTo, b.ReplyTo) && slices.Equal(a.Sender, b.Sender) &&
		a.Date.Equal(b.Date) && a.MessageID == b.MessageID && slices.Equal(a.InReplyTo, b.InReplyTo) &&
		slices.Equal(a.References, b.References) && slices.Equal(a.ListUnsubscribe, b.ListUnsubscribe)
}

func TestParseHeaderDates(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Tue, 12 Mar 2024 17:15:30 +0100", "2024-03-12T17:15:30+01:00"},
		{"Tue, 12 Mar 2024 17:15:30 +0100 (CET)", "2024-03-12T17:15:30+01:00"},
		{"12 Mar 2024 17:15:30 -0000", "2024-03-12T17:15:30Z"},
		{"Tue, 12 Mar 24 17:15:30 +0100", "2024-03-12T17:15:30+01:00"},
		{"Tue Mar 12 17:15:30 2024", "2024-03-12T17:15:30Z"},
		{"2024-03-12T17:15:30+01:00", "2024-03-12T17:15:30+01:00"},
		{"Tue,12 Mar 2024 17:15:30 +0100", "2024-03-12T17:15:30+01:00"},
		// RFC 5322 4.3 obsolete zones have fixed offsets (they were read as UTC).
		{"Tue, 1 Jul 2003 10:52:37 EDT", "2003-07-01T10:52:37-04:00"},
		{"Tue, 1 Jul 2003 10:52:37 pst", "2003-07-01T10:52:37-08:00"},
		{"Tue, 1 Jul 2003 10:52:37 CST", "2003-07-01T10:52:37-06:00"},
		{"Tue, 1 Jul 2003 10:52:37 GMT", "2003-07-01T10:52:37Z"},
		{"Tue, 1 Jul 2003 10:52:37 -0400 (EDT)", "2003-07-01T10:52:37-04:00"},
		{"Tue Jul  1 10:52:37 PDT 2003", "2003-07-01T10:52:37-07:00"},
		{"yesterday", ""},
		{"", ""},
	}
	for _, tc := range tests {
		h, err := message.ParseHeader([]byte("Date: " + tc.in + "\r\nSubject: x\r\n\r\n"))
		got := ""
		if !h.Date.IsZero() {
			got = h.Date.Format(time.RFC3339)
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseHeader(Date: %q).Date = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseHeaderNoFields(t *testing.T) {
	for _, raw := range []string{"", "\r\n\r\nbody only", "no colon here"} {
		if _, err := message.ParseHeader([]byte(raw)); !errors.Is(err, message.ErrMalformed) {
			t.Errorf("ParseHeader(%q) error = %v, want ErrMalformed", raw, err)
		}
	}
	if _, err := message.ParseHeader([]byte(strings.Repeat("X-A: b\r\n", 3))); err != nil {
		t.Errorf("ParseHeader(unterminated) = %v, want nil", err)
	}
}

// The package resolves ISO-8859-1 as windows-1252 (doc.go), and the body
// does; an encoded word with the same label and byte must decode the same
// way instead of losing the character (Outlook's "=?iso-8859-1?Q?=80?=").
func TestEncodedWordLatin1AsWindows1252(t *testing.T) {
	raw := "Subject: =?iso-8859-1?Q?Preis_100=80_=93netto=94?=\r\n" +
		"Content-Type: text/plain; charset=iso-8859-1\r\n\r\nPreis 100\x80 \x93netto\x94\r\n"
	h, _ := message.ParseHeader([]byte(raw))
	b, _ := message.ParseBodies([]byte(raw))
	if h.Subject != b.Text || h.Subject != "Preis 100€ “netto”" {
		t.Errorf("Subject = %q, body = %q: the same iso-8859-1 bytes decode differently", h.Subject, b.Text)
	}
}

// TestEncodedWordLatin1InAddress: a display name in an ISO-8859-1 encoded
// word reads the same way (the address parser decodes words itself).
func TestEncodedWordLatin1InAddress(t *testing.T) {
	h, _ := message.ParseHeader([]byte("From: =?ISO-8859-1?Q?=84Shop=93?= <a@example.com>\r\n\r\n"))
	if len(h.From) != 1 || h.From[0].Name != "„Shop“" {
		t.Errorf("From = %+v, want the name „Shop“", h.From)
	}
}
