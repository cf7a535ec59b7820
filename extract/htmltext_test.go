package extract_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/extract"
)

func TestHTMLToText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"collapse whitespace", "<p>a \n\t b</p>", "a b"},
		{"entities", "<p>Tom &amp; Jerry &copy; &#8364;5 &nbsp;x</p>", "Tom & Jerry © €5 x"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo"},
		{"divs and br", "<div>one</div><div>two<br>three</div>", "one\ntwo\nthree"},
		{"double br", "a<br><br>b", "a\n\nb"},
		{"link kept", `<a href="https://x.test/a?b=1&amp;c=2">Go</a>`, "Go (https://x.test/a?b=1&c=2)"},
		{"link text is url", `<a href="https://x.test/">x.test</a>`, "x.test"},
		{"image link alt", `<a href="https://x.test/"><img alt="Logo" src="l.png"></a>`, "Logo (https://x.test/)"},
		{"image link no alt", `<a href="https://x.test/"><img src="l.png"></a>`, ""},
		{"non-http link", `<a href="mailto:a@x.test">mail us</a>`, "mail us"},
		{"skipped", "<head><title>T</title><style>p{}</style></head><script>x()</script><p>body</p>", "body"},
		{"hidden", `<div style="display: none">pre</div><p>body</p>`, "body"},
		{"invisible padding", "<p>a&zwnj;&#8203;b</p>", "ab"},
		{"list", "<ul><li>one</li><li>two</li></ul>", "- one\n- two"},
		{"table cells", "<table><tr><td>Name:</td><td>Jane</td></tr><tr><td>Plan:</td><td>Pro</td></tr></table>", "Name: Jane\nPlan: Pro"},
		{"pre", "<pre>a  b\n c</pre>", "a  b\n c"},
		{"broken html", "<p>unclosed <b>bold <i>both", "unclosed bold both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := extract.HTMLToText(tt.in); got != tt.want {
				t.Errorf("HTMLToText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
