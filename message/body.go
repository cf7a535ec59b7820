package message

import (
	"bytes"
	"io"
	"strings"

	"github.com/emersion/go-message/textproto"
)

// Bodies are the main bodies of a message, decoded to UTF-8 with "\n" line
// endings.
type Bodies struct {
	Text string // the text/plain body, or the rendering of HTML (see TextFromHTML)
	HTML string // the text/html body as sent (decoded, not sanitized); "" for text-only mail
	// TextFromHTML reports that Text is HTMLToText(HTML) because the message
	// has no text/plain body, or only a blank one.
	TextFromHTML bool
}

const (
	maxDepth = 32   // nesting of multiparts followed
	maxParts = 1000 // parts looked at, in all
)

// ParseBodies picks the main text/plain and text/html bodies of a whole
// message: the first of each that is not an attachment (disposition
// attachment, or a file name without disposition inline) and not inside a
// forwarded message/rfc822, searching multipart/alternative, related, mixed
// and signed alike. It undoes the transfer encoding and converts the
// declared charset to UTF-8: an HTML body without a declared charset is
// sniffed (BOM, <meta charset>); text without one that is not UTF-8 is read
// as windows-1252; an unknown charset keeps the bytes with invalid UTF-8
// replaced. format=flowed text is unwrapped. HTML-only mail gets Text from
// [HTMLToText]. A message cut short or with broken parts yields what could
// be read; the error, matching [ErrMalformed], is only for input with
// neither header fields nor a body.
func ParseBodies(raw []byte) (Bodies, error) {
	f, off := readFields(raw)
	if len(f) == 0 && off >= len(raw) {
		return Bodies{}, ErrMalformed
	}
	var w bodyWalker
	w.entity(f, raw[off:], 0)
	return MakeBodies(w.text, w.html), nil
}

// MakeBodies builds the Bodies of a message from its decoded text/plain and
// text/html parts ("" when it has none), as ParseBodies does: trailing blank
// lines cut from the text, and the HTML rendered to text when the text part
// is missing or blank. For the parts of a message fetched one by one.
func MakeBodies(text, html string) Bodies {
	b := Bodies{Text: strings.TrimRight(text, " \t\n"), HTML: html}
	if strings.TrimSpace(b.Text) == "" && strings.TrimSpace(b.HTML) != "" {
		b.Text, b.TextFromHTML = HTMLToText(b.HTML), true
	}
	return b
}

// bodyWalker walks a MIME tree depth first, keeping the first text/plain
// and text/html bodies.
type bodyWalker struct {
	text, html       string
	gotText, gotHTML bool
	parts            int
}

// done reports that both bodies are found or the part budget is spent.
func (w *bodyWalker) done() bool {
	return (w.gotText && w.gotHTML) || w.parts >= maxParts
}

// entity handles one entity: it descends into multiparts, skips forwarded
// messages and keeps text bodies.
func (w *bodyWalker) entity(f fields, body []byte, depth int) {
	w.parts++
	ct, params := parseMediaType(f.get("Content-Type"))
	if ct == "" || (strings.HasPrefix(ct, "multipart/") && params["boundary"] == "") {
		ct = "text/plain" // RFC 2045 default; a multipart without boundary cannot be split
	}
	switch {
	case strings.HasPrefix(ct, "multipart/"):
		if depth < maxDepth {
			w.multipart(body, params["boundary"], depth)
		}
	case ct == "text/plain" || ct == "text/html":
		if !isAttachment(f, params) {
			w.leaf(ct, params, f.get("Content-Transfer-Encoding"), body)
		}
	}
	// message/rfc822 and every other type: not a body of this message.
}

// multipart walks the parts of a multipart body. Parts are read whole; a
// part cut short (no closing boundary) keeps what it has.
func (w *bodyWalker) multipart(body []byte, boundary string, depth int) {
	mr := textproto.NewMultipartReader(bytes.NewReader(body), boundary)
	for !w.done() {
		p, err := mr.NextPart()
		if err != nil {
			return // io.EOF, or a part header go-message rejects
		}
		b, _ := io.ReadAll(p)
		pf := fields{}
		addFields(pf, p.Header)
		w.entity(pf, b, depth+1)
	}
}

// leaf decodes a text/plain or text/html part unless one of its kind was
// already kept.
func (w *bodyWalker) leaf(ct string, params map[string]string, cte string, body []byte) {
	if (ct == "text/plain" && w.gotText) || (ct == "text/html" && w.gotHTML) {
		return
	}
	s, _ := DecodeText(body, ct, params, cte) // unknown encoding: keep the bytes
	if ct == "text/html" {
		w.html, w.gotHTML = s, true
		return
	}
	w.text, w.gotText = s, true
}

// isAttachment reports whether a text part is a file rather than a body:
// disposition attachment, or a file name without an explicit inline.
func isAttachment(f fields, ctParams map[string]string) bool {
	disp, dparams := parseMediaType(f.get("Content-Disposition"))
	if disp == "attachment" {
		return true
	}
	named := dparams["filename"] != "" || ctParams["name"] != ""
	return named && disp != "inline"
}
