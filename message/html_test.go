package message_test

import (
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
		{"wrapped href is joined", "<a href=\"https://example.com/very/\n   long\">Go</a>", "Go (https://example.com/very/long)"},
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
