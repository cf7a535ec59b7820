package message

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden characters are the ones CleanText, CleanLine and CleanURL take out
// of untrusted text, because they could hide or disguise content from a
// human reviewing what an agent reads, or smuggle instructions past them:
//
//   - control characters (Unicode Cc: C0, DEL, C1), but for the line
//     breaks and tabs that CleanText keeps;
//   - format characters (Cf): zero-width characters (U+200B–U+200F), bidi
//     embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
//     the BOM (U+FEFF), the soft hyphen (U+00AD), the tag characters
//     (U+E0000–U+E007F) and the rest;
//   - the invisible fillers that are no format characters (U+034F,
//     U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+3164, U+FFA0), the
//     other default-ignorable code points (U+FFF0–U+FFF8, U+E0080–U+E0FFF)
//     and the noncharacters (U+FDD0–U+FDEF, U+xFFFE, U+xFFFF);
//   - variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF), which can
//     carry a byte each after a visible character, except one U+FE0E or
//     U+FE0F (text or emoji presentation) right after a visible character.
//
// U+2028 and U+2029 (line and paragraph separators) are line breaks.
// Invalid UTF-8 becomes U+FFFD, without being reported.

// mode is how hidden characters are treated.
type mode int

const (
	modeText mode = iota // CleanText: "\n" and "\t" stay
	modeLine             // CleanLine: line breaks and tabs become a space
	modeURL              // CleanURL: hidden characters and spaces are percent-encoded
)

// CleanText cleans text of several lines (a body): it removes the hidden
// characters and keeps "\n" and "\t"; "\r\n", a lone "\r", U+2028 and
// U+2029 become "\n" without being counted. It reports whether a hidden
// character was removed.
func CleanText(s string) (string, bool) { return clean(s, modeText) }

// CleanLine cleans text of one line (a subject, an address, a file name, a
// Message-ID): it removes the hidden characters, and line breaks (CR, LF,
// VT, FF, U+2028, U+2029) become one space each, counted as removed; a tab
// becomes a space, not counted. It reports whether a character was
// removed or replaced.
func CleanLine(s string) (string, bool) { return clean(s, modeLine) }

// CleanURL cleans a link: hidden characters, control characters and
// spaces (Unicode Z) are percent-encoded as their UTF-8 bytes (RFC 3986
// §2.1), so that the link stays a valid URL that names the same resource
// and shows what was hidden in it. It reports whether it encoded anything.
func CleanURL(s string) (string, bool) { return clean(s, modeURL) }

// clean is CleanText, CleanLine and CleanURL.
func clean(s string, m mode) (string, bool) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if plain(s, m) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	removed := false
	canVary := false // the last character written can take a variation selector
	for i := 0; i < len(s); {
		start := i
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case m == modeURL:
			if hidden(r) || isVariation(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Z) {
				escape(&b, s[start:i])
				removed = true
			} else {
				b.WriteString(s[start:i])
			}
		case r == '\r' || r == '\n' || r == '\u2028' || r == '\u2029':
			if r == '\r' && i < len(s) && s[i] == '\n' {
				i++ // CRLF is one line break
			}
			if m == modeText {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
				removed = true
			}
			canVary = false
		case r == '\t':
			if m == modeText {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
			canVary = false
		case isVariation(r):
			if (r == '\uFE0E' || r == '\uFE0F') && canVary {
				b.WriteRune(r)
			} else {
				removed = true
			}
			canVary = false
		case hidden(r):
			removed = true
		default:
			b.WriteString(s[start:i])
			canVary = !unicode.IsSpace(r)
		}
	}
	return b.String(), removed
}

// plain reports that s has nothing clean would change: ASCII without
// control characters (and, for a URL, without spaces); a multi-line text
// may have "\n" and "\t".
func plain(s string, m mode) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 || c == 0x7f:
			return false
		case c == ' ' && m == modeURL:
			return false
		case c < 0x20 && !(m == modeText && (c == '\n' || c == '\t')):
			return false
		}
	}
	return true
}

// escape writes the UTF-8 bytes of s percent-encoded.
func escape(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(hex[s[i]>>4])
		b.WriteByte(hex[s[i]&0xf])
	}
}

// IsHidden reports a character that CleanLine removes or replaces: a
// hidden character, a line break or a tab (see the list above). A string
// without one (and, for CleanURL, without a space) is left as it is by
// all three, but for one U+FE0E or U+FE0F after a visible character, which
// IsHidden reports too.
func IsHidden(r rune) bool {
	return hidden(r) || isVariation(r) || r == '\u2028' || r == '\u2029'
}

// isVariation reports a variation selector.
func isVariation(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// hidden reports a hidden character other than a line break, a tab or a
// variation selector (see the list above).
func hidden(r rune) bool {
	switch {
	case r < 0x80:
		return r < 0x20 || r == 0x7f
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r == 0x3164, r == 0xFFA0,
		r >= 0xFFF0 && r <= 0xFFF8, r >= 0xE0000 && r <= 0xE0FFF,
		r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r)
}
