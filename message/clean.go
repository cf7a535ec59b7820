package message

import (
	"strings"
	"unicode"
)

// CleanText removes characters that are invisible or reorder text, which
// could hide or disguise content from a human reviewing what an agent reads:
// zero-width characters (U+200B–U+200F), bidi embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), the BOM (U+FEFF), the soft
// hyphen (U+00AD), every other format character (Unicode Cf, such as the
// tag characters U+E0000–U+E007F) and control characters other than "\n"
// and "\t". "\r\n" and a lone "\r" become "\n" without being counted. It
// reports whether anything was removed. Invalid UTF-8 becomes U+FFFD.
func CleanText(s string) (string, bool) {
	s = normalizeNewlines(strings.ToValidUTF8(s, "\uFFFD"))
	if strings.IndexFunc(s, invisible) < 0 {
		return s, false
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s), true
}

// invisible reports a character that CleanText removes.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x80:
		return r < 0x20 || r == 0x7f
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r)
}
