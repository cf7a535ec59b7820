package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToText returns the readable text of an HTML body: scripts, styles, the
// head and hidden (display:none) elements are skipped, whitespace is
// collapsed, blocks start new lines (paragraphs are separated by a blank
// line), list items start with "- ", and a link keeps its target as
// "text (url)". Entities are decoded.
func HTMLToText(src string) string {
	return renderText(src, true).text
}

// rendered is an HTML body as text, with what the extractors need to know
// about where the text came from.
type rendered struct {
	text    string
	spans   []span   // short elements that may hold a code on their own
	anchors []anchor // <a href> elements, in document order
}

// span is a short element of the rendered text, by byte offsets.
type span struct {
	start, end int
	styled     bool // large, bold, letter-spaced or monospace
}

// anchor is one <a href> element.
type anchor struct {
	href       string // entity-decoded, tabs and newlines removed, trimmed
	text       string // rendered anchor text (an image's alt text when it has no other)
	start, end int    // byte offsets of the anchor text in the rendered text
	outer      int    // byte offset after the " (url)" that follows the text
	image      bool   // holds an image and no text of its own
	button     bool   // styled as a button
}

// maxSpanBytes bounds the elements recorded as spans: a code on its own is short.
const maxSpanBytes = 48

// renderer walks a parsed HTML tree and writes its text.
type renderer struct {
	w       textWriter
	spans   []span
	anchors []anchor
	pre     int  // depth of <pre> elements
	inA     int  // depth of <a> elements
	quotes  bool // render quoted reply history too
}

// render renders an HTML body for the extractors: without the quoted reply
// history, whose old codes and links are not the ones awaited.
func render(src string) rendered {
	return renderText(src, false)
}

func renderText(src string, quotes bool) rendered {
	if src == "" {
		return rendered{}
	}
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil { // only a failing reader errors; a strings.Reader does not
		return rendered{}
	}
	r := &renderer{quotes: quotes}
	r.walk(doc)
	text := r.w.b.String()
	return rendered{text: text, spans: r.spans, anchors: r.anchors}
}

func (r *renderer) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if r.pre > 0 {
			r.w.preformatted(n.Data)
		} else {
			r.w.text(n.Data)
		}
		return
	case html.ElementNode:
		r.element(n)
		return
	case html.CommentNode, html.DoctypeNode:
		return
	}
	r.children(n)
}

func (r *renderer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.walk(c)
	}
}

// element renders one element and its children.
func (r *renderer) element(n *html.Node) {
	if skipped(n) || !r.quotes && quoted(n) {
		return
	}
	switch n.DataAtom {
	case atom.A:
		r.anchor(n)
		return
	case atom.Br:
		r.w.lineBreak()
		return
	case atom.Img:
		if r.inA > 0 {
			r.w.text(attr(n, "alt"))
		}
		return
	case atom.Td, atom.Th:
		r.w.space = true
	}
	brk := blockBreaks(n.DataAtom)
	r.w.block(brk)
	if n.DataAtom == atom.Li {
		r.w.text("- ")
	}
	if n.DataAtom == atom.Pre {
		r.pre++
		defer func() { r.pre-- }()
	}
	start := r.w.b.Len()
	r.children(n)
	r.recordSpan(n, start, brk > 0 || n.DataAtom == atom.Td || n.DataAtom == atom.Th)
	r.w.block(brk)
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		r.w.space = true
	}
}

// recordSpan remembers a short element that is a block of its own or styled
// prominently, so that a code alone in it can be recognised.
func (r *renderer) recordSpan(n *html.Node, start int, block bool) {
	end := r.w.b.Len()
	if end <= start || end-start > maxSpanBytes {
		return
	}
	styled := prominent(n)
	if styled || block {
		r.spans = append(r.spans, span{start: start, end: end, styled: styled})
	}
}

// anchor renders a link as "text (url)" and records it.
func (r *renderer) anchor(n *html.Node) {
	href := cleanHref(attr(n, "href"))
	r.inA++
	start := r.w.b.Len()
	r.children(n)
	r.inA--
	end := r.w.b.Len()
	written := r.w.b.String()[start:end]
	text := strings.TrimSpace(written)
	start += len(written) - len(strings.TrimLeft(written, " \n")) // skip the separator flushed first
	if href == "" {
		return
	}
	if text != "" && isHTTP(href) && !sameURL(text, href) {
		r.w.space = true
		r.w.text("(" + href + ")")
	}
	r.anchors = append(r.anchors, anchor{
		href: href, text: text, start: start, end: end, outer: r.w.b.Len(),
		image:  hasImage(n) && !hasOwnText(n),
		button: buttonLike(n),
	})
}

// skipped reports elements whose content is not part of the readable text.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Head, atom.Style, atom.Script, atom.Noscript, atom.Template,
		atom.Title, atom.Svg, atom.Object, atom.Iframe, atom.Select:
		return true
	}
	st := compactStyle(attr(n, "style"))
	return strings.Contains(st, "display:none")
}

// quoted reports the containers mail clients put quoted reply history in:
// <blockquote type="cite"> (Apple Mail, Thunderbird) and the quote classes
// of Gmail, Yahoo and Proton.
func quoted(n *html.Node) bool {
	if n.DataAtom == atom.Blockquote && strings.EqualFold(attr(n, "type"), "cite") {
		return true
	}
	class := strings.ToLower(attr(n, "class"))
	return class != "" && (strings.Contains(class, "gmail_quote") || strings.Contains(class, "yahoo_quoted") ||
		strings.Contains(class, "protonmail_quote"))
}

// blockBreaks returns how many line breaks surround an element: 2 for
// paragraph-like blocks, 1 for other blocks, 0 for inline elements.
func blockBreaks(a atom.Atom) int {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Blockquote, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Pre,
		atom.Hr, atom.Figure:
		return 2
	case atom.Div, atom.Li, atom.Tr, atom.Dt, atom.Dd, atom.Section,
		atom.Article, atom.Header, atom.Footer, atom.Nav, atom.Aside,
		atom.Main, atom.Center, atom.Address, atom.Form, atom.Fieldset,
		atom.Caption, atom.Figcaption, atom.Details, atom.Summary, atom.Body:
		return 1
	}
	return 0
}

// attr returns the value of the attribute key of n, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// cleanHref removes what browsers remove from a URL attribute: surrounding
// spaces and controls, and every tab and newline inside.
func cleanHref(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	// A browser percent-encodes a space inside an href; so does the link
	// returned, which a client can then open as it is.
	return strings.ReplaceAll(s, " ", "%20")
}

// sameURL reports whether an anchor text shows its URL already.
func sameURL(text, href string) bool {
	norm := func(s string) string {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
		return strings.TrimSuffix(strings.TrimPrefix(s, "www."), "/")
	}
	return strings.EqualFold(norm(text), norm(href))
}

func hasImage(n *html.Node) bool {
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && c.DataAtom == atom.Img {
			return true
		}
	}
	return false
}

func hasOwnText(n *html.Node) bool {
	for c := range n.Descendants() {
		if c.Type == html.TextNode && strings.TrimFunc(c.Data, isBlank) != "" {
			return true
		}
	}
	return false
}

// isBlank reports whitespace and the invisible characters that mail uses as
// padding (zero-width spaces and joiners, soft hyphens, byte-order marks).
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || isInvisible(r)
}

func isInvisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u2060', '\ufeff', '\u00ad', '\u034f':
		return true
	}
	return false
}
