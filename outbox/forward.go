package outbox

import (
	"html"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// ForwardHTML is the HTML part of an inline forward of a message whose
// body is original (HTML): the note, the header block of smtp.ForwardBlock
// and the original's body quoted in a blockquote, sanitized (see
// [SanitizeHTML]). The text part stays smtp.ForwardBlock's.
func ForwardHTML(h smtp.ForwardedHeader, note, original string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n")
	if note != "" {
		b.WriteString("<div>" + textHTML(note) + "</div><br>\n")
	}
	b.WriteString("<div>" + textHTML(strings.TrimRight(smtp.ForwardBlock(h, ""), "\n")) + "</div><br>\n")
	b.WriteString(`<blockquote type="cite" style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">` + "\n")
	b.WriteString(SanitizeHTML(original))
	b.WriteString("\n</blockquote>\n</body></html>\n")
	return b.String()
}

// textHTML shows plain text in HTML: escaped, hidden characters removed,
// line breaks kept.
func textHTML(s string) string {
	s, _ = message.CleanText(s)
	return strings.ReplaceAll(html.EscapeString(s), "\n", "<br>\n")
}

// dropped are the elements a quoted body loses with all they hold: what
// runs code, loads other documents, submits or changes the page around it.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Noscript: true, atom.Template: true, atom.Style: true,
	atom.Iframe: true, atom.Frame: true, atom.Frameset: true, atom.Object: true, atom.Embed: true, atom.Applet: true,
	atom.Form: true, atom.Input: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Base: true, atom.Meta: true, atom.Link: true, atom.Title: true, atom.Head: true,
	atom.Svg: true, atom.Math: true, atom.Plaintext: true, atom.Xmp: true, atom.Noembed: true, atom.Noframes: true,
}

// SanitizeHTML is the body of an untrusted HTML document, made safe to
// quote in a message of ours: the elements of dropped go, every on*
// attribute goes, links and sources keep only http, https, mailto and cid
// targets (and data: images), hidden characters are removed from the text
// (message.CleanText) and encoded in links (message.CleanURL). What stays
// is the body's content, without <html>, <head> or <body>.
func SanitizeHTML(s string) string {
	body := &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := xhtml.ParseFragment(strings.NewReader(strings.ToValidUTF8(s, "\uFFFD")), body)
	if err != nil {
		return textHTML(message.HTMLToText(s))
	}
	var b strings.Builder
	for _, n := range nodes {
		clean(n)
		if keep(n) {
			_ = xhtml.Render(&b, n)
		}
	}
	return b.String()
}

// keep reports whether node n stays in a quoted body.
func keep(n *xhtml.Node) bool {
	switch n.Type {
	case xhtml.ElementNode:
		return !dropped[n.DataAtom]
	case xhtml.TextNode:
		return true
	}
	return false // comments, doctypes
}

// clean sanitizes n and what it holds, in place.
func clean(n *xhtml.Node) {
	switch n.Type {
	case xhtml.TextNode:
		n.Data, _ = message.CleanText(n.Data)
		return
	case xhtml.ElementNode:
		n.Attr = safeAttrs(n.Attr)
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if keep(c) {
			clean(c)
		} else {
			n.RemoveChild(c)
		}
		c = next
	}
}

// urlAttrs are the attributes that name a target.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "background": true,
	"poster": true, "srcset": true, "xlink:href": true, "lowsrc": true, "dynsrc": true, "longdesc": true, "cite": true}

// safeAttrs keeps the attributes of an element that neither run code nor
// reach a target we do not allow.
func safeAttrs(attrs []xhtml.Attribute) []xhtml.Attribute {
	out := attrs[:0]
	for _, a := range attrs {
		key := strings.ToLower(a.Key)
		if a.Namespace != "" {
			key = strings.ToLower(a.Namespace) + ":" + key
		}
		switch {
		case strings.HasPrefix(key, "on"), key == "srcdoc", scriptURL(a.Val):
			continue
		case urlAttrs[key]:
			u, ok := safeURL(a.Val)
			if !ok {
				continue
			}
			a.Val = u
		}
		out = append(out, a)
	}
	return out
}

// scriptURL reports a value that a browser would run as a link target,
// in any attribute: a browser knows more URL attributes than urlAttrs.
func scriptURL(v string) bool {
	scheme, _, _ := strings.Cut(strings.ToLower(squeeze(v)), ":")
	return scheme == "javascript" || scheme == "vbscript"
}

// squeeze removes blanks and control characters, which browsers skip in a
// URL's scheme.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, s)
}

// safeURL is a link or source with an allowed scheme (or none: relative),
// hidden characters encoded.
func safeURL(v string) (string, bool) {
	u, _ := message.CleanURL(strings.TrimSpace(v))
	lower := strings.ToLower(squeeze(u))
	scheme, _, found := strings.Cut(lower, ":")
	if !found || strings.ContainsAny(scheme, "/?#") {
		return u, true // relative
	}
	switch scheme {
	case "http", "https", "mailto", "cid":
		return u, true
	case "data":
		return u, strings.HasPrefix(lower, "data:image/") && !strings.HasPrefix(lower, "data:image/svg")
	}
	return u, false
}
