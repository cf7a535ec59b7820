package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPreview(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Noon works.\n\nOn Tue, Alice wrote:\n> Shall we?\n> ok", "Noon works."},
		{"  many   spaces\n\tand\r\nlines  ", "many spaces and lines"},
		{"hidden\u200bchar\u202e here", "hiddenchar here"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := preview(tt.in); got != tt.want {
			t.Errorf("preview(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := preview(strings.Repeat("wörd ", 500))
	if n := utf8.RuneCountInString(long); n > previewChars || !strings.HasSuffix(long, "…") {
		t.Errorf("preview of a long text has %d characters (%q...), want at most %d ending in …", n, long[:20], previewChars)
	}
}
