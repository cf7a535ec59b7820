package message

import "strings"

// The shaping of header values for what a reader is shown: every value a
// sender writes is cleaned and cut at its bound (Max*), and the caller is
// told where something was cut, so that no answer grows with what a sender
// wrote. Every tool that shows a subject, an address, a message id, a file
// name or a link goes through these functions.

// FormatAddress renders an address for a reader: "Name <email>" or
// "email", with invisible characters removed from the name.
func FormatAddress(name, email string) string {
	name, _ = CleanText(strings.TrimSpace(name))
	switch {
	case name == "" || name == email:
		return email
	case email == "":
		return name
	}
	return name + " <" + email + ">"
}

// BoundSubject cleans a subject and cuts it at MaxSubjectChars; truncated
// is also true when the fetch had cut it already (cut).
func BoundSubject(s string, cut bool) (string, bool) {
	s, _ = CleanText(s)
	s, over := BoundText(s, MaxSubjectChars)
	return s, over || cut
}

// boundAddress renders one address with its name and addr-spec bounded.
func boundAddress(name, email string) string {
	a := BoundAddress(Address{Name: name, Email: email})
	return FormatAddress(a.Name, a.Email)
}

// BoundAddresses renders at most max entries of l, addr giving each one's
// name and email. total is nil when the list is whole, else the number of
// entries found (at least that many when the fetch had cut the field: cut).
func BoundAddresses[T any](l []T, max int, cut bool, addr func(T) (name, email string)) ([]string, *int) {
	kept, n := BoundList(l, max)
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

// FirstAddress renders the first entry of l, bounded, or "".
func FirstAddress[T any](l []T, addr func(T) (name, email string)) string {
	if len(l) == 0 {
		return ""
	}
	return boundAddress(addr(l[0]))
}

// BoundID is a message id, or "" when it is longer than MaxIDBytes (a cut
// id names no message).
func BoundID(id string) string {
	if len(id) > MaxIDBytes {
		return ""
	}
	return id
}

// BoundLink is a link, or nil when it is longer than MaxLinkBytes.
func BoundLink(url string) *string {
	if len(url) > MaxLinkBytes {
		return nil
	}
	return &url
}

// BoundName cuts a file name or a folder's word at MaxNameChars.
func BoundName(s string) string {
	s, _ = BoundText(s, MaxNameChars)
	return s
}

// BoundContentType cuts a media type at MaxContentTypeBytes.
func BoundContentType(s string) string {
	s, _ = BoundBytes(s, MaxContentTypeBytes)
	return s
}
