package message

// What read_email shows of a message, decided here because it is pure:
// whether a header field it shows hides a character, and one window of
// the bodies.

// HiddenInHeader reports a hidden character (one CleanLine removes) in a
// header field that read_email shows, the addresses' names and emails
// included, or in one of filenames (the attachments'): the bounding of
// those fields removes some without telling.
func HiddenInHeader(hdr Header, filenames ...string) bool {
	fields := append([]string{hdr.Subject, hdr.MessageID}, hdr.InReplyTo...)
	fields = append(fields, hdr.References...)
	for _, l := range [][]Address{hdr.From, hdr.To, hdr.Cc, hdr.ReplyTo} {
		for _, a := range l {
			fields = append(fields, a.Name, a.Email)
		}
	}
	fields = append(fields, filenames...)
	for _, f := range fields {
		if _, removed := CleanLine(f); removed {
			return true
		}
	}
	return false
}

// BodyWindow is one window of a message's bodies (WindowBodies).
type BodyWindow struct {
	Text string  // the text body's window, hidden characters removed
	HTML *string // the HTML body's window; nil when not asked for
	// Hidden: the text body had hidden characters (removed), asked for
	// or not.
	Hidden bool
	// Next is the offset of the following window, the smaller of the two
	// bodies' when both go on; -1 when every body asked for ends here.
	Next int
}

// WindowBodies cuts b to the window of maxChars characters at offset
// (Window): of the text body when text is set, of the HTML body when html
// is.
func WindowBodies(b Bodies, text, html bool, offset, maxChars int) BodyWindow {
	clean, hidden := CleanText(b.Text)
	w := BodyWindow{Hidden: hidden, Next: -1}
	if text {
		chunk, trunc, n := Window(clean, offset, maxChars)
		w.Text = chunk
		if trunc {
			w.Next = n
		}
	}
	if html {
		chunk, trunc, n := Window(b.HTML, offset, maxChars)
		w.HTML = &chunk
		if trunc && (w.Next < 0 || n < w.Next) {
			w.Next = n
		}
	}
	return w
}
