package message_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestHTMLToText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"paragraphs and line breaks", "<p>one</p><p>two<br>three</p>", "one\n\ntwo\nthree"},
		{"whitespace collapsed", "<div>  a \n\t b  </div>\n\n<div>c</div>", "a b\nc"},
		{"inline elements keep their spaces", "Use code <strong>X1</strong> now, <em>please</em>.", "Use code X1 now, please."},
		{"no space invented between inline elements", "<b>Hel</b><i>lo</i>", "Hello"},
		{"entities decoded", "<p>&lt;tag&gt; &amp; &euro;5 &copy; &#8212; &#x263A; caf&eacute;&nbsp;x</p>", "<tag> & €5 © — ☺ café x"},
		{"link keeps its target", `<a href="https://example.com/reset?t=1&amp;u=2">Reset password</a>`, "Reset password (https://example.com/reset?t=1&u=2)"},
		{"link whose text is the URL", `<a href="https://example.com/">https://example.com</a>`, "https://example.com"},
		{"link whose text contains the URL", `<a href="https://ex.com/a">Open https://ex.com/a now</a>`, "Open https://ex.com/a now"},
		{"mailto link with the address as text", `<a href="mailto:help@example.com">help@example.com</a>`, "help@example.com"},
		{"mailto link with other text", `<a href="mailto:help@example.com">Write us</a>`, "Write us (mailto:help@example.com)"},
		{"link without text shows its target", `<a href="https://example.com/x"></a>`, "https://example.com/x"},
		{"in-page and javascript links show no target", `<a href="#top">Top</a> <a href="javascript:alert(1)">Run</a>`, "Top Run"},
		{"href read as a browser reads it", "<a href=\" https://example.com/very/\n   long\t\">Go</a>", "Go (https://example.com/very/%20%20%20long)"},
		{"image with alt", `<img src="a.png" alt=" Company  logo ">`, "[image: Company logo]"},
		{"image without alt", `<p>x<img src="a.png">y</p>`, "xy"},
		{"tracking pixel with alt", `<p>x</p><img src="p.gif" width="1" height="1" alt="pixel">`, "x"},
		{"image link", `<a href="https://ex.com"><img src="l.png" alt="Logo"></a>`, "[image: Logo] (https://ex.com)"},
		{"unordered list", "<ul><li>one</li><li>two</li></ul>", "- one\n- two"},
		{"ordered list with start", `<ol start="3"><li>c</li><li>d</li></ol>`, "3. c\n4. d"},
		{"nested list", "<ul><li>a<ul><li>a1</li></ul></li><li>b</li></ul>", "- a\n  - a1\n- b"},
		{"list between paragraphs", "<p>before</p><ul><li>x</li></ul><p>after</p>", "before\n\n- x\n\nafter"},
		{"table rows and cells", "<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>€3</td></tr></table>", "Item | Price\nTea | €3"},
		{"empty cells make no separators", "<table><tr><td></td><td>only</td><td> </td></tr></table>", "only"},
		{"nested layout table", "<table><tr><td><table><tr><td>inner</td></tr></table></td><td>right</td></tr></table>", "inner\nright"},
		{"headings", "<h1>Title</h1><p>text</p>", "Title\n\ntext"},
		{"blockquote", "<p>reply</p><blockquote><p>quoted</p><p>more</p></blockquote><p>end</p>", "reply\n\n> quoted\n\n> more\n\nend"},
		{"pre keeps blanks", "<pre>a  b\n  c</pre>", "a  b\n  c"},
		{"script, style, head and comments dropped", "<html><head><title>T</title><style>p{color:red}</style></head><body><script>alert('x')</script><!-- note --><p>body</p><style>.a{}</style></body></html>", "body"},
		{"noscript, template, svg dropped", "<noscript><img src=x></noscript><template><p>t</p></template><svg><text>s</text></svg><p>ok</p>", "ok"},
		{"display:none preheader dropped", `<div style="display: none !important; max-height:0">preheader</div><p>visible</p>`, "visible"},
		{"visibility hidden, opacity 0, zero height dropped", `<span style="visibility:hidden">a</span><span style="opacity:0">b</span><div style="max-height:0px;overflow:hidden">c</div><p>d</p>`, "d"},
		{"hidden attribute dropped", `<p hidden>secret</p><p>shown</p>`, "shown"},
		{"font-size:0 alone is not hidden", `<td style="font-size:0"><span style="font-size:14px">kept</span></td>`, "kept"},
		{"at most two blank lines", "a<br><br><br><br><br><br>b", "a\n\n\nb"},
		{"gmail divs", "<div>Hi</div><div><br></div><div>text</div>", "Hi\n\ntext"},
		{"no leading or trailing blank lines", "<br><br><p>x</p><br><br>", "x"},
		{"hr separates", "a<hr>b", "a\n\nb"},
		{"zero-width padding dropped", "<p>a&zwnj;&#8203;b&shy;c</p>", "abc"},
		{"plain text input", "just text", "just text"},
		{"unclosed tags", "<div><p>a<p>b<li>c", "a\n\nb\n\n- c"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		if got := message.HTMLToText(tc.in); got != tc.want {
			t.Errorf("%s: HTMLToText(%q) =\n%q\nwant\n%q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestHTMLToTextListBlocks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<ul><li><p>first</p></li><li><p>second</p><p>more</p></li></ul>", "- first\n\n- second\n\nmore"}, // loose list: paragraphs keep their gap,
		{"<p>x</p><ol><li><div>a</div></li></ol>", "x\n\n1. a"},
		{"<ul><li></li><li>b</li></ul>", "- b"},
		{"<blockquote><ul><li>q</li></ul></blockquote>", "> - q"},
	}
	for _, tc := range tests {
		if got := message.HTMLToText(tc.in); got != tc.want {
			t.Errorf("HTMLToText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// x/net/html refuses documents nested deeper than 512 open elements; an
// HTML-only mail with 600 unclosed <div>s must still get a readable text
// (DESIGN.md: "HTML-only mail gets a readable body_text").
func TestHTMLDeepNestingKeepsText(t *testing.T) {
	h := strings.Repeat("<div>", 600) + "Your code is 123456<script>steal()</script><style>p{}</style><p>Bye &amp; thanks"
	if got, want := message.HTMLToText(h), "Your code is 123456\nBye & thanks"; got != want {
		t.Errorf("HTMLToText(600 nested divs + text) = %q, want %q", got, want)
	}
	raw := "Content-Type: text/html; charset=utf-8\r\n\r\n" + h
	b, _ := message.ParseBodies([]byte(raw))
	if !strings.Contains(b.Text, "123456") {
		t.Errorf("ParseBodies(HTML-only).Text = %q (HTML is %d bytes), want the text", b.Text, len(b.HTML))
	}
}

// A tiny HTML body must not render to a text orders of magnitude bigger:
// the "> " prefix of every line (and the indent of every list item) grows
// with the nesting depth, so N lines at depth D cost N*D bytes.
func TestHTMLOutputBounded(t *testing.T) {
	for name, h := range map[string]string{
		"blockquote": strings.Repeat("<blockquote>", 400) + strings.Repeat("a<br>", 2000),
		"list":       "<ul>" + strings.Repeat("<li><ul>", 200) + strings.Repeat("<li>a", 2000),
	} {
		out := message.HTMLToText(h)
		if len(out) > 10*len(h) {
			t.Errorf("%s: %d bytes of HTML rendered to %d bytes of text (%dx)", name, len(h), len(out), len(out)/len(h))
		}
	}
}

// HTMLToText documents "blockquotes become "> " lines": the first line of a
// quote must be marked even when the quote is the first thing in the body.
func TestHTMLLeadingBlockquoteMarked(t *testing.T) {
	got := message.HTMLToText("<blockquote>quoted line<br>second line</blockquote><p>my reply</p>")
	want := "> quoted line\n> second line\n\nmy reply"
	if got != want {
		t.Errorf("HTMLToText = %q, want %q", got, want)
	}
}
