package message_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
		removed        bool
	}{
		{"plain text untouched", "Hello,\n\tworld 🙂 café", "Hello,\n\tworld 🙂 café", false},
		{"CRLF normalized, not reported", "a\r\nb\rc", "a\nb\nc", false},
		{"zero-width space and joiners", "pass\u200bword \u200c\u200d", "password ", true},
		{"LRM and RLM", "a\u200eb\u200fc", "abc", true},
		{"bidi override hides a file extension", "invoice\u202efdp.exe", "invoicefdp.exe", true},
		{"bidi embeddings and isolates", "\u202aa\u202b\u202c\u202d\u2066b\u2067\u2068\u2069", "ab", true},
		{"BOM and soft hyphen", "\ufeffsoft\u00adhyphen", "softhyphen", true},
		{"word joiner and invisible operators (other Cf)", "x\u2060y\u2062z", "xyz", true},
		{"tag characters (ASCII smuggling)", "ok\U000E0049\U000E0047\U000E004E\U000E007F", "ok", true},
		{"Arabic letter mark and Mongolian vowel separator", "a\u061cb\u180ec", "abc", true},
		{"control characters other than newline and tab", "a\x00b\x1bc\x7fd\u0085e", "abcde", true},
		{"invalid UTF-8 replaced, not reported", "a\xffb", "a\ufffdb", false},
		{"empty", "", "", false},
	}
	for _, tc := range tests {
		got, removed := message.CleanText(tc.in)
		if got != tc.want || removed != tc.removed {
			t.Errorf("%s: CleanText(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, removed, tc.want, tc.removed)
		}
	}
}
