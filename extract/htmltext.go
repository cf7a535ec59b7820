package extract

import (
	"unicode"

	"github.com/email-mcp/email-mcp/message"
)

// HTMLToText returns the readable text of an HTML body: the text read_email
// shows, [message.HTMLToText]. The extractors read the same rendering,
// with the quoted reply history left out.
func HTMLToText(src string) string {
	return message.HTMLToText(src)
}

// rendered is an HTML body as text, with what the extractors need to know
// about where the text came from.
type rendered struct {
	text    string
	spans   []message.Span     // short elements that may hold a code on their own
	anchors []message.HTMLLink // <a href> elements, in document order
}

// span is a short element of a text being scanned, by rune offsets.
type span struct {
	start, end int
	styled     bool // large, bold, letter-spaced or monospace
}

// maxSpanBytes bounds the elements recorded as spans: a code on its own is short.
const maxSpanBytes = message.MaxSpanBytes

// render renders an HTML body for the extractors with message.RenderHTML:
// without the quoted reply history, whose old codes and links are not the
// ones awaited.
func render(src string) rendered {
	r := message.RenderHTML(src, message.RenderOptions{OmitQuoted: true})
	return rendered{text: r.Text, spans: r.Spans, anchors: r.Links}
}

// cleanHref reads a URL the way a browser reads an href attribute.
func cleanHref(s string) string { return message.LinkTarget(s) }

// isBlank reports whitespace and the invisible characters that mail uses as
// padding (zero-width spaces and joiners, soft hyphens, byte-order marks).
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || message.IsPadding(r)
}
