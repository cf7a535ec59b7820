package message_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestWindow(t *testing.T) {
	tests := []struct {
		name        string
		s           string
		offset, max int
		chunk       string
		truncated   bool
		next        int
	}{
		{"whole string fits", "hello", 0, 10, "hello", false, 5},
		{"exact fit", "hello", 0, 5, "hello", false, 5},
		{"one short", "hello", 0, 4, "hell", true, 4},
		{"middle chunk", "hello world", 6, 3, "wor", true, 9},
		{"last chunk ends exactly", "hello world", 6, 5, "world", false, 11},
		{"multibyte runes counted as runes", "日本語テキスト", 2, 3, "語テキ", true, 5},
		{"emoji not split", "a🙂b🙂c", 1, 2, "🙂b", true, 3},
		{"combining text by runes", "e\u0301te\u0301", 0, 2, "e\u0301", true, 2},
		{"offset at end", "abc", 3, 5, "", false, 3},
		{"offset past end", "abc", 10, 5, "", false, 3},
		{"offset past end in runes but not bytes", "日本", 4, 5, "", false, 2},
		{"negative offset counts as 0", "abc", -4, 2, "ab", true, 2},
		{"max 0 means no limit", "日本語", 1, 0, "本語", false, 3},
		{"negative max means no limit", "abc", 0, -1, "abc", false, 3},
		{"empty string", "", 0, 10, "", false, 0},
		{"invalid UTF-8 byte counts as one rune", "a\xffb", 1, 1, "\xff", true, 2},
	}
	for _, tc := range tests {
		chunk, truncated, next := message.Window(tc.s, tc.offset, tc.max)
		if chunk != tc.chunk || truncated != tc.truncated || next != tc.next {
			t.Errorf("%s: Window(%q, %d, %d) = %q, %v, %d; want %q, %v, %d",
				tc.name, tc.s, tc.offset, tc.max, chunk, truncated, next, tc.chunk, tc.truncated, tc.next)
		}
	}
}
