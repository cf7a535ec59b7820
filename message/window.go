package message

import "unicode/utf8"

// Window returns the chunk of s that starts offset runes in and holds at
// most maxRunes runes, for read_email's offset/max_chars. truncated reports that
// s goes on after the chunk; next is the rune offset just past the chunk
// (where the next call starts when truncated, the rune length of s when
// not). Runes are never split. A negative offset counts as 0; maxRunes <= 0
// means no limit; an offset past the end gives "" and truncated false.
func Window(s string, offset, maxRunes int) (chunk string, truncated bool, next int) {
	offset = min(offset, len(s)) // a rune is at least one byte: caps the walk
	offset = max(offset, 0)
	start, n := byteOffset(s, 0, offset)
	if n < offset { // past the end
		return "", false, n
	}
	if maxRunes <= 0 {
		return s[start:], false, offset + utf8.RuneCountInString(s[start:])
	}
	end, got := byteOffset(s, start, maxRunes)
	return s[start:end], end < len(s), offset + got
}

// byteOffset walks count runes of s from byte from; it returns the byte
// offset reached and the runes walked (fewer than count at the end of s).
func byteOffset(s string, from, count int) (int, int) {
	i, n := from, 0
	for n < count && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return i, n
}
