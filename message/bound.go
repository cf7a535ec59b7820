package message

import (
	"strings"
	"unicode/utf8"
)

// Bounds of the header values a tool result carries. A sender writes these
// fields, so none of them may make an answer as large as the mail: each is
// cut at its bound, and the result says where (a *_truncated flag for a
// text, a *_total count for a list). SECURITY.md lists them.
const (
	// MaxSubjectChars bounds a subject, in characters.
	MaxSubjectChars = 1000
	// MaxNameChars bounds a display name (of a From, To, Cc... entry), a
	// file name and a folder's special-use word, in characters.
	MaxNameChars = 200
	// MaxEmailBytes bounds an addr-spec: RFC 5321 allows 254 bytes in a
	// path; longer ones are cut.
	MaxEmailBytes = 254
	// MaxSummaryAddresses bounds the To list of a message summary
	// (search_emails, the inbox tools).
	MaxSummaryAddresses = 20
	// MaxAddresses bounds the To, Cc and Reply-To lists of read_email and
	// the recipient lists that send and reply results echo.
	MaxAddresses = 100
	// MaxIDBytes bounds a message id (Message-ID, In-Reply-To, each of
	// References): RFC 5322 lines are at most 998 bytes.
	MaxIDBytes = 998
	// MaxReferences bounds the References list: the last ones (the closest
	// ancestors) are kept.
	MaxReferences = 50
	// MaxContentTypeBytes bounds a media type as results show it.
	MaxContentTypeBytes = 255
	// MaxLinkBytes bounds a link (magic_link, links): a longer one is left
	// out rather than cut, since a cut link leads elsewhere.
	MaxLinkBytes = 8192
	// MaxLinks bounds the list of links of wait_for_link.
	MaxLinks = 20
	// MaxAttachments bounds the attachment list of read_email.
	MaxAttachments = 200
)

// BoundText cuts s after max characters (runes), at a character boundary,
// and reports whether it cut.
func BoundText(s string, max int) (string, bool) {
	if len(s) <= max { // at most max bytes: at most max runes
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// BoundBytes cuts s to at most max bytes at a character boundary and
// reports whether it cut.
func BoundBytes(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// Truncate cuts s to at most n bytes at a character boundary and marks
// the cut with "…": the one shortening of names and values quoted in
// error messages and logs.
func Truncate(s string, n int) string {
	if t, cut := BoundBytes(s, n); cut {
		return t + "…"
	}
	return s
}

// BoundList keeps the first max elements of l; total is len(l) when it cut,
// else 0.
func BoundList[T any](l []T, max int) (kept []T, total int) {
	if len(l) <= max {
		return l, 0
	}
	return l[:max], len(l)
}

// BoundAddress bounds the name (MaxNameChars) and the address
// (MaxEmailBytes) of a.
func BoundAddress(a Address) Address {
	a.Name, _ = BoundText(a.Name, MaxNameChars)
	a.Email, _ = BoundBytes(a.Email, MaxEmailBytes)
	return a
}

// BoundIDs drops the ids longer than MaxIDBytes (a cut id names no
// message) and keeps the last max of the rest; total is the number of ids
// in l when anything was left out, else 0.
func BoundIDs(l []string, max int) (kept []string, total int) {
	out := make([]string, 0, min(len(l), max))
	for _, id := range l {
		if len(id) <= MaxIDBytes {
			out = append(out, id)
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	if len(out) == len(l) {
		return out, 0
	}
	return out, len(l)
}

// CutField ends a header field block that a server cut after a byte budget
// (an IMAP partial fetch of HEADER.FIELDS): what follows the last complete
// entry is dropped, so the block parses as whole fields. For an address
// field (list true) the last entry, cut short, goes (the block ends at the
// last top-level comma); for a text field the cut text stays, without an
// encoded word or a character cut in the middle. The result ends in CRLF.
func CutField(raw []byte, list bool) []byte {
	s := string(raw)
	if list {
		parts := SplitAddressList(s)
		if len(parts) > 1 {
			s = strings.Join(parts[:len(parts)-1], ",")
		}
	} else if i := strings.LastIndex(s, "=?"); i >= 0 && !strings.Contains(s[i:], "?=") {
		s = s[:i]
	}
	s = strings.TrimRight(trimCutRune(s), "\r\n\t ")
	return []byte(s + "\r\n")
}

// trimCutRune drops a UTF-8 sequence cut short at the end of s.
func trimCutRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			return s
		}
	}
	return s
}
