package message_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

func TestPreview(t *testing.T) {
	const previewChars = 200 // get_thread's
	tests := []struct{ in, want string }{
		{"Noon works.\n\nOn Tue, Alice wrote:\n> Shall we?\n> ok", "Noon works."},
		{"  many   spaces\n\tand\r\nlines  ", "many spaces and lines"},
		{"hidden\u200bchar\u202e here", "hiddenchar here"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := message.Preview(tt.in, previewChars); got != tt.want {
			t.Errorf("Preview(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := message.Preview(strings.Repeat("wörd ", 500), previewChars)
	if n := utf8.RuneCountInString(long); n > previewChars || !strings.HasSuffix(long, "…") {
		t.Errorf("Preview of a long text has %d characters (%q...), want at most %d ending in …", n, long[:20], previewChars)
	}
}
