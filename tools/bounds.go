package tools

import (
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// The shaping of header values into results: every value a sender writes
// is cut at its bound (message.Max*), and the result says where something
// was cut, so that no answer grows with what a sender wrote. Every tool
// that shows a subject, an address, a message id, a file name or a link
// goes through these functions.

// boundSubject cleans a subject and cuts it at message.MaxSubjectChars;
// truncated is also true when the fetch had cut it already (cut).
func boundSubject(s string, cut bool) (string, bool) {
	s, over := message.BoundText(clean(s), message.MaxSubjectChars)
	return s, over || cut
}

// boundAddress renders one address with its name and addr-spec bounded.
func boundAddress(name, email string) string {
	a := message.BoundAddress(message.Address{Name: name, Email: email})
	return formatAddress(a.Name, a.Email)
}

// boundAddresses renders at most max entries of l. total is nil when the
// list is whole, else the number of entries found (at least that many when
// the fetch had cut the field: cut).
func boundAddresses[T any](l []T, max int, cut bool, addr func(T) (name, email string)) ([]string, *int) {
	kept, n := message.BoundList(l, max)
	out := make([]string, 0, len(kept))
	for _, a := range kept {
		out = append(out, boundAddress(addr(a)))
	}
	if n == 0 && !cut {
		return out, nil
	}
	total := len(l)
	return out, &total
}

func imapAddr(a imap.Address) (string, string)       { return a.Name, a.Email }
func messageAddr(a message.Address) (string, string) { return a.Name, a.Email }

// firstAddress renders the first entry of l, bounded, or "".
func firstAddress[T any](l []T, addr func(T) (name, email string)) string {
	if len(l) == 0 {
		return ""
	}
	return boundAddress(addr(l[0]))
}

// boundID is a message id, or "" when it is longer than message.MaxIDBytes
// (a cut id names no message).
func boundID(id string) string {
	if len(id) > message.MaxIDBytes {
		return ""
	}
	return id
}

// boundLink is a link, or nil when it is longer than message.MaxLinkBytes.
func boundLink(url string) *string {
	if len(url) > message.MaxLinkBytes {
		return nil
	}
	return &url
}

// boundName cuts a file name or a folder's word at message.MaxNameChars.
func boundName(s string) string {
	s, _ = message.BoundText(s, message.MaxNameChars)
	return s
}

// boundContentType cuts a media type at message.MaxContentTypeBytes.
func boundContentType(s string) string {
	s, _ = message.BoundBytes(s, message.MaxContentTypeBytes)
	return s
}
