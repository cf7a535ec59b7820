package message

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// openLink starts an <a>: its text is collected as it is written.
func (r *renderer) openLink(n *html.Node) {
	r.resolveFirsts()
	r.links = append(r.links, linkState{
		node: n, href: LinkTarget(attr(n, "href")), start: r.w.b.Len(),
		textStart: len(r.w.linkText), labels: r.w.labels, first: -1,
	})
	r.w.inLink++
	r.w.awaiting = true
}

// resolveFirsts sets where the open links without content so far start,
// once content came: those links are the top of the stack, all opened
// before the last link, so the first content after it is theirs.
func (r *renderer) resolveFirsts() {
	if r.w.awaiting {
		return
	}
	for i := len(r.links) - 1; i >= 0 && r.links[i].first < 0; i-- {
		r.links[i].first = r.w.awaitedAt
	}
}

// closeLink records the link and appends " (url)" after its text, unless
// the target is not worth showing or the text already shows it; a link
// without text shows its target alone.
func (r *renderer) closeLink() {
	r.resolveFirsts()
	l := r.links[len(r.links)-1]
	r.links = r.links[:len(r.links)-1]
	r.w.inLink--
	first := l.first
	own := r.w.linkText[l.textStart:]
	if r.w.inLink == 0 {
		r.w.linkText = r.w.linkText[:0] // an outer link keeps an inner one's text
	}
	if l.href == "" {
		return
	}
	end := r.w.b.Len()
	start, text := end, ""
	switch {
	case first < 0: // no text
	case r.w.labels == l.labels:
		start, text = first, strings.TrimSpace(r.w.b.String()[first:end]) // a substring: no copy
	default:
		start, text = first, string(bytes.TrimSpace(own)) // without labels, markers and separators
	}
	shown := shownTarget(l.href)
	if shown == "" && !r.positions {
		return
	}
	switch {
	case shown == "":
	case text == "":
		r.w.inline(shown)
		start = r.w.b.Len() - len(shown)
		end = start
	case r.sameTarget(text, shown):
	default:
		r.w.appendRaw(" (")
		r.w.appendRaw(shown)
		r.w.appendRaw(")")
	}
	if !r.positions {
		return
	}
	r.out.Links = append(r.out.Links, HTMLLink{
		Href: l.href, Text: text, Start: start, End: end, Outer: r.w.b.Len(),
		Image:  hasImage(l.node) && !hasOwnText(l.node),
		Button: buttonLike(l.node),
	})
}

// LinkTarget returns the target of an href attribute (entities decoded) as
// a browser reads it: surrounding spaces and controls removed, every tab
// and newline inside removed, and a space inside percent-encoded, so that
// the link can be opened as it is.
func LinkTarget(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	return strings.ReplaceAll(s, " ", "%20")
}

// shownTarget returns a link target worth showing a reader: in-page
// anchors, javascript:, vbscript:, data: and cid: give "".
func shownTarget(href string) string {
	for _, p := range []string{"#", "javascript:", "data:", "cid:", "vbscript:"} {
		if hasPrefixFold(href, p) {
			return ""
		}
	}
	return href
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// sameTarget reports whether link text already shows the target, ignoring
// scheme, "mailto:"/"tel:", "www.", a trailing slash and case.
func (r *renderer) sameTarget(text, href string) bool {
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		for _, p := range []string{"https://", "http://", "mailto:", "tel:"} {
			if hasPrefixFold(s, p) {
				s = s[len(p):]
			}
		}
		s = strings.TrimSuffix(s, "/")
		if hasPrefixFold(s, "www.") {
			s = s[len("www."):]
		}
		return s
	}
	if strings.EqualFold(norm(text), norm(href)) || strings.Contains(text, href) {
		return true
	}
	if len(text) < len(href) {
		return false
	}
	// Contains ignoring case, in a reused buffer: linear, no allocation.
	r.fold = appendLower(r.fold[:0], text)
	n := len(r.fold)
	r.fold = appendLower(r.fold, href)
	return bytes.Contains(r.fold[:n], r.fold[n:])
}

// appendLower appends s in lower case (Unicode simple folding) to b.
func appendLower(b []byte, s string) []byte {
	for _, c := range s {
		b = utf8.AppendRune(b, unicode.ToLower(c))
	}
	return b
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

// historyStart reports the element where Outlook starts the quoted mail
// of a reply or forward: the header block "From: … Sent: …" of Outlook on
// the web and Windows (id divRplyFwdMsg) or of Outlook for Mac
// (OLK_SRC_BODY_SECTION). The quoted mail follows it as its siblings.
func historyStart(n *html.Node) bool {
	id := attr(n, "id")
	return id == "divRplyFwdMsg" || id == "OLK_SRC_BODY_SECTION"
}

// hasImage reports an <img> below n.
func hasImage(n *html.Node) bool {
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && c.DataAtom == atom.Img {
			return true
		}
	}
	return false
}

// hasOwnText reports text below n other than blanks and padding.
func hasOwnText(n *html.Node) bool {
	for c := range n.Descendants() {
		if c.Type == html.TextNode && strings.TrimFunc(c.Data, isBlankOrPadding) != "" {
			return true
		}
	}
	return false
}

// openSpan remembers an element that may become a Span: one whose text is
// short and that is a block, a table cell or emphasized.
func (r *renderer) openSpan(n *html.Node, st string) {
	if st != "" || blockGap[n.DataAtom] > 0 || spanBlock[n.DataAtom] || prominentTag(n.DataAtom) {
		r.spans = append(r.spans, spanState{node: n, start: r.w.b.Len(), style: st})
	}
}

// spanBlock are the blocks that blockGap does not list.
var spanBlock = map[atom.Atom]bool{
	atom.Li: true, atom.Tr: true, atom.Td: true, atom.Th: true, atom.Ul: true,
	atom.Ol: true, atom.Blockquote: true, atom.Pre: true,
}

// closeSpan records the element n as a Span if it was remembered and its
// text is short.
func (r *renderer) closeSpan(n *html.Node) {
	if len(r.spans) == 0 || r.spans[len(r.spans)-1].node != n {
		return
	}
	s := r.spans[len(r.spans)-1]
	r.spans = r.spans[:len(r.spans)-1]
	if end := r.w.b.Len(); end > s.start && end-s.start <= MaxSpanBytes {
		emph := prominent(n, s.style)
		if emph || blockGap[n.DataAtom] > 0 || spanBlock[n.DataAtom] {
			r.out.Spans = append(r.out.Spans, Span{Start: s.start, End: end, Emphasized: emph})
		}
	}
}

// result finishes the text and moves the offsets of links and spans to it.
func (r *renderer) result() Rendering {
	if !r.positions {
		return Rendering{Text: r.w.finished()}
	}
	text, lines := r.w.finish(true)
	out := r.out
	out.Text = text
	for i := range out.Links {
		l := &out.Links[i]
		l.Start, l.End, l.Outer = lines.at(l.Start), lines.at(l.End), lines.at(l.Outer)
	}
	for i := range out.Spans {
		s := &out.Spans[i]
		s.Start, s.End = lines.at(s.Start), lines.at(s.End)
	}
	return out
}
