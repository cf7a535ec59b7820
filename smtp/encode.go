package smtp

import (
	"net/mail"
	"strings"
	"unicode/utf8"
)

// maxWord is the length of the encoded-words we write: short enough that
// "Subject: " or "From: " plus one word stays within 76 columns (RFC 2047
// section 2), so go-message can fold between words. (mime.QEncoding makes
// 75-character words, which go-message then cannot fold.)
const maxWord = 60

// maxRun is the longest run without whitespace written unencoded; a longer
// one could not be folded.
const maxRun = 70

// encodeText is the header form of unstructured text (Subject): unchanged
// when it is plain printable ASCII, else RFC 2047 Q encoded-words.
func encodeText(s string) string {
	if !needsEncoding(s) {
		return s
	}
	return encodeWords(s)
}

// header is a's RFC 5322 form: net/mail's quoting for a plain name, our
// short encoded-words for any other.
func (a Address) header() string {
	if !needsEncoding(a.Name) {
		return (&mail.Address{Name: a.Name, Address: a.Email}).String()
	}
	return encodeWords(a.Name) + " " + (&mail.Address{Address: a.Email}).String()
}

// needsEncoding reports text that cannot go into a header as is: non-ASCII
// or control bytes, a run too long to fold, or "=?", which a reader would
// decode as an encoded-word (so it is encoded to stay literal).
func needsEncoding(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < ' ' && c != '\t') {
			return true
		}
		if c == ' ' || c == '\t' {
			run = 0
		} else if run++; run > maxRun {
			return true
		}
	}
	return strings.Contains(s, "=?")
}

// encodeWords encodes s as UTF-8 Q encoded-words of at most maxWord
// characters, split between runes and separated by spaces (which readers
// drop between encoded-words). Only letters, digits and !*+-/ stay as they
// are, which is safe in a phrase (display name) as well as in text.
func encodeWords(s string) string {
	const prefix, suffix = "=?utf-8?q?", "?="
	room := maxWord - len(prefix) - len(suffix)
	var words []string
	var cur strings.Builder
	var buf [utf8.UTFMax]byte
	for _, r := range s {
		var enc strings.Builder
		for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
			qByte(&enc, b)
		}
		if cur.Len() > 0 && cur.Len()+enc.Len() > room {
			words = append(words, prefix+cur.String()+suffix)
			cur.Reset()
		}
		cur.WriteString(enc.String())
	}
	if cur.Len() > 0 {
		words = append(words, prefix+cur.String()+suffix)
	}
	return strings.Join(words, " ")
}

// qByte writes b in Q encoding.
func qByte(w *strings.Builder, b byte) {
	const hex = "0123456789ABCDEF"
	switch {
	case b == ' ':
		w.WriteByte('_')
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', strings.IndexByte("!*+-/", b) >= 0:
		w.WriteByte(b)
	default:
		w.WriteByte('=')
		w.WriteByte(hex[b>>4])
		w.WriteByte(hex[b&0x0f])
	}
}
