package smtp

import (
	"regexp"
	"strings"
	"time"
)

// forwardPrefix matches the forward markers at the start of a subject:
// Fwd, Fw, and the localized WG (German), TR (French), RV (Spanish) and VB
// (Swedish), in any case, repeated. "[Fwd: x]" is left alone: it is not a
// prefix.
var forwardPrefix = regexp.MustCompile(`(?i)^\s*(?:(?:fwd?|wg|tr|rv|vb)\s*:\s*)+`)

// ForwardSubject gives the subject of a forward: exactly one "Fwd: " in
// front, whatever forward markers the original had ("Fwd: Fwd:", "FW:",
// "Fw:", "WG:", "TR:" ...). A reply marker stays: "Re: x" -> "Fwd: Re: x".
// An empty subject gives "Fwd:".
func ForwardSubject(s string) string {
	rest := strings.TrimSpace(forwardPrefix.ReplaceAllString(s, ""))
	return strings.TrimSpace("Fwd: " + rest)
}

// ForwardedHeader is what the quoted header block of an inline forward
// shows of the original.
type ForwardedHeader struct {
	From    Address
	Date    time.Time // zero: no Date line
	Subject string
	To, Cc  []Address
}

// ForwardBlock gives the text an inline forward carries below the
// sender's note: the "---------- Forwarded message ---------" line, the
// original's From, Date, Subject, To (and Cc) lines, a blank line and its
// text. Names are shown as written, addresses in angle brackets.
func ForwardBlock(h ForwardedHeader, text string) string {
	var b strings.Builder
	b.WriteString("---------- Forwarded message ---------\n")
	b.WriteString("From: " + showAddress(h.From) + "\n")
	if !h.Date.IsZero() {
		b.WriteString("Date: " + h.Date.Format(dateLayout) + "\n")
	}
	b.WriteString("Subject: " + oneLine(h.Subject) + "\n")
	if len(h.To) > 0 {
		b.WriteString("To: " + showAddresses(h.To) + "\n")
	}
	if len(h.Cc) > 0 {
		b.WriteString("Cc: " + showAddresses(h.Cc) + "\n")
	}
	b.WriteString("\n")
	b.WriteString(text)
	return b.String()
}

// showAddress renders an address for a person to read: "Name <a@b>".
func showAddress(a Address) string {
	name := oneLine(a.Name)
	switch {
	case a.Email == "":
		return name
	case name == "" || name == a.Email:
		return "<" + a.Email + ">"
	}
	return name + " <" + a.Email + ">"
}

func showAddresses(l []Address) string {
	parts := make([]string, len(l))
	for i, a := range l {
		parts[i] = showAddress(a)
	}
	return strings.Join(parts, ", ")
}

// oneLine replaces line breaks and other control characters by spaces: the
// original's header values must not start lines of their own in the block.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
