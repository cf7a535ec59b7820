package message_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

func TestBoundText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
		cut  bool
	}{
		{"hello", 5, "hello", false},
		{"hello!", 5, "hello", true},
		{"Grüße", 4, "Grüß", true},
		{"Grüße", 5, "Grüße", false},
		{"日本語の件名", 3, "日本語", true},
		{"", 0, "", false},
	}
	for _, tt := range tests {
		if got, cut := message.BoundText(tt.in, tt.max); got != tt.want || cut != tt.cut {
			t.Errorf("BoundText(%q, %d) = %q, %v; want %q, %v", tt.in, tt.max, got, cut, tt.want, tt.cut)
		}
	}
}

func TestBoundBytes(t *testing.T) {
	if got, cut := message.BoundBytes("aü", 2); got != "a" || !cut {
		t.Errorf(`BoundBytes("aü", 2) = %q, %v; want "a", true (no half character)`, got, cut)
	}
	if got, cut := message.BoundBytes("abc", 3); got != "abc" || cut {
		t.Errorf(`BoundBytes("abc", 3) = %q, %v; want "abc", false`, got, cut)
	}
}

func TestBoundIDs(t *testing.T) {
	long := strings.Repeat("x", message.MaxIDBytes+1)
	got, total := message.BoundIDs([]string{"a", long, "b", "c", "d"}, 2)
	if !slices.Equal(got, []string{"c", "d"}) || total != 5 {
		t.Errorf("BoundIDs = %q, %d; want the last two short ids [c d], 5", got, total)
	}
	got, total = message.BoundIDs([]string{"a", "b"}, 2)
	if !slices.Equal(got, []string{"a", "b"}) || total != 0 {
		t.Errorf("BoundIDs(whole) = %q, %d; want [a b], 0", got, total)
	}
}

func TestCutField(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		list bool
		want string
	}{
		{"last entry dropped", "To: a@x.test, Bob <b@x.test>, Car", true, "To: a@x.test, Bob <b@x.test>\r\n"},
		{"comma in quotes kept", `To: "Doe, J" <j@x.test>, k@`, true, "To: \"Doe, J\" <j@x.test>\r\n"},
		{"folded list", "To: a@x.test,\r\n b@x.test,\r\n c", true, "To: a@x.test,\r\n b@x.test\r\n"},
		{"cut encoded word", "Subject: Hi =?utf-8?q?Gr=C3=BC", false, "Subject: Hi\r\n"},
		{"whole encoded word kept", "Subject: =?utf-8?q?Gr=C3=BC?= more", false, "Subject: =?utf-8?q?Gr=C3=BC?= more\r\n"},
		{"cut character", "Subject: Grü\xc3", false, "Subject: Grü\r\n"},
		{"cut CRLF", "Subject: hello\r", false, "Subject: hello\r\n"},
	}
	for _, tt := range tests {
		if got := string(message.CutField([]byte(tt.raw), tt.list)); got != tt.want {
			t.Errorf("%s: CutField(%q) = %q, want %q", tt.name, tt.raw, got, tt.want)
		}
	}
}

// TestTruncate: names quoted in errors and logs are cut at a character
// boundary, whatever the byte bound; the byte cut it replaced (in mcpkit,
// inbox, outbox and imap) split "Ä" and wrote invalid UTF-8.
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"Inbox", 10, "Inbox"}, {"Inbox", 5, "Inbox"}, {"Inboxes", 5, "Inbox…"},
		{"ÄÄÄ", 3, "Ä…"}, {"ÄÄÄ", 1, "…"}, {"日本語フォルダ", 7, "日本…"}, {"", 0, ""},
	} {
		got := message.Truncate(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
