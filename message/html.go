package message

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToText renders an HTML body as readable plain text: the Text of
// [RenderHTML] with no options. Block elements become line breaks
// (paragraphs and headings a blank line), <br> a line break, list items
// "- " (or "1. " in ordered lists), table rows lines with " | " between
// cells that hold text, blockquotes "> " lines, and <pre> keeps its blanks.
// Links keep their target as "text (url)" unless the text already shows
// the URL; images with alt text become "[image: alt]".
// Dropped: <head>, <script>, <style>, <template>, <noscript>, forms'
// <select>/<textarea>, <svg>/<math>, comments, elements hidden with the
// hidden attribute or inline CSS (display:none, visibility:hidden,
// opacity:0, zero max-height with overflow:hidden — the usual preheader
// tricks), 1×1 tracking pixels and the zero-width padding characters
// (U+200B, U+200C, U+2060, U+FEFF, U+00AD, U+034F) that browsers do not
// show. Entities are decoded, whitespace is collapsed, and there are never
// more than two blank lines in a row.
func HTMLToText(s string) string {
	return render(s, RenderOptions{}, false).Text
}

// RenderOptions changes what [RenderHTML] shows.
type RenderOptions struct {
	// OmitQuoted drops the quoted reply history that mail clients put in
	// <blockquote type="cite"> (Apple Mail, Thunderbird) or in the quote
	// classes of Gmail, Yahoo and Proton: the extractors want the codes
	// and links of the new message only.
	OmitQuoted bool
}

// Rendering is an HTML body rendered as text for people and for the
// extractors alike, with where its links and its short or emphasized
// elements lie in that text. Offsets are byte offsets into Text.
type Rendering struct {
	Text  string
	Links []HTMLLink // <a href> elements that are shown, in document order
	Spans []Span     // short elements that are blocks of their own or emphasized
}

// HTMLLink is one <a href> element of a [Rendering].
type HTMLLink struct {
	Href   string // the target as a browser reads the attribute (see [LinkTarget])
	Text   string // the visible text, blanks collapsed; an image's alt text when it has no other
	Start  int    // where the link text starts in Text
	End    int    // where the link text ends in Text
	Outer  int    // where the link ends in Text, after the " (url)" shown after its text
	Image  bool   // holds an image and no text of its own
	Button bool   // styled as a button (a button class or role, padding or a background)
}

// Span is a short element of a [Rendering], at most [MaxSpanBytes] of
// text, that is a block or table cell of its own or is emphasized: bold,
// a heading, large, letter-spaced or monospace (how mail shows a code).
type Span struct {
	Start, End int
	Emphasized bool
}

// MaxSpanBytes bounds the elements recorded as [Span]s.
const MaxSpanBytes = 48

// RenderHTML renders an HTML body as text (see [HTMLToText] for the rules)
// and reports its links and short elements. Its cost is linear in the
// size of s.
func RenderHTML(s string, o RenderOptions) Rendering {
	return render(s, o, true)
}

// render is RenderHTML, without the links and spans unless positions.
func render(s string, o RenderOptions, positions bool) Rendering {
	if s == "" {
		return Rendering{}
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		// x/net/html refuses more than 512 open elements ("open stack of
		// elements exceeds 512 nodes"): such a document still has text.
		return Rendering{Text: flatText(s)}
	}
	r := renderer{omitQuoted: o.OmitQuoted, positions: positions}
	r.walk(doc)
	return r.result()
}

// flatText renders HTML that cannot be parsed into a tree token by token:
// the text of elements that are shown, a line break at block elements and
// <br>. Lists, tables, quotes, links and hidden elements get no special
// treatment.
func flatText(s string) string {
	var w textWriter
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0 // depth inside skipped elements
	for range maxFlatTokens {
		switch z.Next() {
		case html.ErrorToken:
			return w.finished()
		case html.TextToken:
			if skip == 0 {
				w.text(html.UnescapeString(string(z.Text())))
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tt := z.Token()
			switch {
			case skipped[tt.DataAtom]:
				if tt.Type == html.StartTagToken {
					skip++
				} else if tt.Type == html.EndTagToken && skip > 0 {
					skip--
				}
			case tt.DataAtom == atom.Br:
				w.lineBreak()
			case blockGap[tt.DataAtom] > 0 || tt.DataAtom == atom.Li || tt.DataAtom == atom.Tr || tt.DataAtom == atom.Blockquote:
				w.block(1)
			}
		}
	}
	return w.finished()
}

// maxFlatTokens bounds flatText: a message body is at most a few MB.
const maxFlatTokens = 1 << 22

// renderer walks a parsed document without recursion, so that deeply
// nested input cannot exhaust the stack.
type renderer struct {
	w          textWriter
	lists      []listState
	links      []linkState
	rows       []int       // cells seen in each open table row
	spans      []spanState // open elements that may become spans
	out        Rendering   // links and spans found, by offsets into w.b
	omitQuoted bool
	history    bool   // past the start of an Outlook reply history (omitQuoted only)
	positions  bool   // record links and spans (RenderHTML, not HTMLToText)
	fold       []byte // scratch space of sameTarget
}

// listState is an open <ul> or <ol> and the number of its next item.
type listState struct {
	ordered bool
	n       int
}

// linkState is an open <a> whose target is written when it closes.
type linkState struct {
	node      *html.Node
	href      string // LinkTarget of the href attribute
	start     int    // output length when the link opened
	textStart int    // length of w.linkText when the link opened
	labels    int    // w.labels when the link opened
	first     int    // where its first content starts; -1: none yet, or not known yet
}

// spanState is an open element that becomes a Span if its text is short.
type spanState struct {
	node  *html.Node
	start int
	style string // the element's compactStyle
}

// walk visits the tree depth first by following the node links: open on
// the way down, close on the way up (only for nodes open let in).
func (r *renderer) walk(root *html.Node) {
	n := root
	for n != nil {
		if r.open(n) {
			if n.FirstChild != nil {
				n = n.FirstChild
				continue
			}
			r.close(n)
		}
		for n != root && n.NextSibling == nil {
			n = n.Parent
			r.close(n)
		}
		if n == root {
			return
		}
		n = n.NextSibling
	}
}

// skipped are elements whose content is never shown as text.
var skipped = map[atom.Atom]bool{
	atom.Head: true, atom.Title: true, atom.Script: true, atom.Style: true,
	atom.Template: true, atom.Noscript: true, atom.Noembed: true, atom.Noframes: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Applet: true,
	atom.Select: true, atom.Textarea: true, atom.Svg: true, atom.Math: true,
	atom.Audio: true, atom.Video: true, atom.Map: true,
}

// open handles entering n and reports whether its children are visited
// (and close called for it).
func (r *renderer) open(n *html.Node) bool {
	switch n.Type {
	case html.DocumentNode:
		return true
	case html.TextNode:
		r.w.text(n.Data)
		return false
	case html.ElementNode:
	default: // comments, doctype, raw nodes
		return false
	}
	if n.Namespace != "" || skipped[n.DataAtom] || strings.EqualFold(n.Data, "script") {
		return false
	}
	st := compactStyle(attr(n, "style"))
	if r.omitQuoted && (r.history || historyStart(n)) {
		// Outlook writes the header of the quoted mail in a div of its own
		// and the quoted mail after it, with no container around both:
		// all that follows the header is history.
		r.history = true
		return false
	}
	if isHidden(n, st) || r.omitQuoted && quoted(n) {
		return false
	}
	r.openElement(n)
	if r.positions {
		r.openSpan(n, st)
	}
	return true
}

// openElement applies the rendering rule of an element being entered.
func (r *renderer) openElement(n *html.Node) {
	switch n.DataAtom {
	case atom.Br:
		r.w.lineBreak()
	case atom.Img:
		r.image(n)
	case atom.A:
		r.openLink(n)
	case atom.Ul, atom.Ol:
		r.w.block(listGap(len(r.lists)))
		r.lists = append(r.lists, listState{ordered: n.DataAtom == atom.Ol, n: olStart(n)})
	case atom.Li:
		r.listItem()
	case atom.Tr:
		r.w.block(1)
		r.rows = append(r.rows, 0)
	case atom.Td, atom.Th:
		r.cell()
	case atom.Blockquote:
		r.w.block(2)
		r.w.quote++
	case atom.Pre:
		r.w.block(2)
		r.w.pre++
	default:
		if gap := blockGap[n.DataAtom]; gap > 0 {
			r.w.block(gap)
		}
	}
}

// close applies the rendering rule of an element being left.
func (r *renderer) close(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	if r.positions {
		r.closeSpan(n)
	}
	switch n.DataAtom {
	case atom.A:
		r.closeLink()
	case atom.Ul, atom.Ol:
		r.lists = r.lists[:len(r.lists)-1]
		r.w.block(listGap(len(r.lists)))
	case atom.Tr:
		r.rows = r.rows[:len(r.rows)-1]
		r.w.block(1)
	case atom.Blockquote:
		r.w.quote--
		r.w.block(2)
	case atom.Pre:
		r.w.pre--
		r.w.block(2)
	case atom.Li:
		r.w.block(1)
	default:
		if gap := blockGap[n.DataAtom]; gap > 0 {
			r.w.block(gap)
		}
	}
}

// blockGap gives the line breaks around block elements: 1 starts a new
// line, 2 leaves a blank line. Elements not listed are inline.
var blockGap = map[atom.Atom]int{
	atom.P: 2, atom.H1: 2, atom.H2: 2, atom.H3: 2, atom.H4: 2, atom.H5: 2, atom.H6: 2,
	atom.Hr: 2, atom.Table: 1, atom.Dl: 2, atom.Figure: 2,
	atom.Div: 1, atom.Section: 1, atom.Article: 1, atom.Header: 1, atom.Footer: 1,
	atom.Main: 1, atom.Nav: 1, atom.Aside: 1, atom.Address: 1, atom.Center: 1,
	atom.Dt: 1, atom.Dd: 1, atom.Figcaption: 1, atom.Form: 1, atom.Fieldset: 1,
	atom.Legend: 1, atom.Details: 1, atom.Summary: 1, atom.Caption: 1, atom.Dialog: 1,
	atom.Hgroup: 1, atom.Tbody: 1, atom.Thead: 1, atom.Tfoot: 1, atom.Body: 1, atom.Html: 1,
}

// listGap is a blank line around top-level lists, a line break around
// nested ones.
func listGap(depth int) int {
	if depth == 0 {
		return 2
	}
	return 1
}

// olStart reads the start attribute of an ordered list (default 1).
func olStart(n *html.Node) int {
	if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && v >= 0 && v < 1e6 {
		return v
	}
	return 1
}

// listItem starts an item of the innermost list with its marker.
func (r *renderer) listItem() {
	marker := "- "
	if len(r.lists) > 0 {
		l := &r.lists[len(r.lists)-1]
		if l.ordered {
			marker = strconv.Itoa(l.n) + ". "
			l.n++
		}
	}
	r.w.listMarker(strings.Repeat("  ", min(max(len(r.lists)-1, 0), maxIndent)) + marker)
}

// cell separates the cells of a row that hold text on the same line.
func (r *renderer) cell() {
	if len(r.rows) == 0 {
		return
	}
	if r.rows[len(r.rows)-1] > 0 && r.w.b.Len() > 0 && !r.w.lineStart {
		r.w.cellSep = true
	}
	r.rows[len(r.rows)-1]++
}

// image writes "[image: alt]" for images that carry alt text and are not
// tracking pixels.
func (r *renderer) image(n *html.Node) {
	alt := attr(n, "alt")
	if strings.TrimSpace(alt) == "" || isPixel(n) {
		return
	}
	// A link's own text gets the alt text, not the "[image: ]" label.
	r.w.startContent()
	if r.w.inLink > 0 {
		r.w.linkText = append(r.w.linkText, ' ')
	}
	r.w.decorate("[image: ")
	sep := ""
	for f := range strings.FieldsSeq(alt) {
		r.w.appendRaw(sep)
		r.w.appendRaw(f)
		sep = " "
	}
	r.w.decorate("]")
}

// attr returns the value of attribute key (lowercase), or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}
