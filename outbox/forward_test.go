package outbox_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// unsafeParts lists what SanitizeHTML must never leave: active elements,
// event attributes, script targets and hidden characters.
func unsafeParts(t *testing.T, out string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	var bad []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "iframe", "object", "embed", "form", "style", "base", "meta", "svg":
				bad = append(bad, "<"+n.Data+">")
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "vbscript:") {
					bad = append(bad, a.Key+"="+a.Val)
				}
			}
		}
		if n.Type == html.TextNode && strings.ContainsAny(n.Data, "\u200b\u202e\ufeff") {
			bad = append(bad, "hidden characters in "+n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return bad
}

// TestSanitizeHTML: what runs code or hides text goes; the text, the
// links and the look (inline styles, tables) stay.
func TestSanitizeHTML(t *testing.T) {
	in := `<!DOCTYPE html><html><head><title>T</title><style>body{display:none}</style><meta http-equiv="refresh" content="0;url=https://evil.example">` +
		`<base href="https://evil.example/"><script>alert(1)</script></head>` +
		`<body onload="alert(2)"><p style="color:red" onclick="alert(3)">Hello <b>wo` + "\u200b" + `rld</b>` + "\u202e" + `</p>` +
		`<a href="java&#x09;script:alert(4)">bad</a> <a href="https://ok.example/x?a=1&amp;b=2">good</a>` +
		`<img src="data:image/png;base64,iVBOR" alt="pic"><img src="data:text/html,<script>x</script>">` +
		`<iframe src="https://evil.example"></iframe><form action="https://evil.example"><input name=p></form>` +
		`<svg><script>alert(5)</script></svg><table><tr><td>cell</td></tr></table><!-- comment --></body></html>`
	out := outbox.SanitizeHTML(in)
	if bad := unsafeParts(t, out); len(bad) > 0 {
		t.Errorf("SanitizeHTML left %q in:\n%s", bad, out)
	}
	for _, want := range []string{`<p style="color:red">`, "Hello <b>world</b>", `href="https://ok.example/x?a=1&amp;b=2"`, `src="data:image/png;base64,iVBOR"`, "<td>cell</td>"} {
		if !strings.Contains(out, want) {
			t.Errorf("SanitizeHTML lost %q:\n%s", want, out)
		}
	}
	for _, gone := range []string{"<title>", "comment", "data:text/html", "evil.example"} {
		if strings.Contains(out, gone) {
			t.Errorf("SanitizeHTML kept %q:\n%s", gone, out)
		}
	}
}

// TestForwardHTML: the note and the header block are escaped text above
// the quoted original.
func TestForwardHTML(t *testing.T) {
	out := outbox.ForwardHTML(smtp.ForwardedHeader{From: smtp.Address{Name: "A <&> B", Email: "a@example.test"}, Subject: "<i>s</i>"},
		"note <b>\nline 2", "<p>original</p>")
	for _, want := range []string{"note &lt;b&gt;<br>\nline 2", "From: A &lt;&amp;&gt; B &lt;a@example.test&gt;", "Subject: &lt;i&gt;s&lt;/i&gt;",
		`<blockquote type="cite"`, "<p>original</p>"} {
		if !strings.Contains(out, want) {
			t.Errorf("ForwardHTML lacks %q:\n%s", want, out)
		}
	}
}

// FuzzSanitizeHTML: whatever the input, the output has no active element,
// event attribute, script target or hidden character.
func FuzzSanitizeHTML(f *testing.F) {
	for _, s := range []string{"<p onclick=x>a</p>", "<a href=' javascript:x'>l</a>", "<svg><script>x</script></svg>",
		"<table><td><script>x</script>", "<math><mi xlink:href=javascript:x>", "a\u200bb", "<noscript><p onmouseover=x>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if bad := unsafeParts(t, outbox.SanitizeHTML(s)); len(bad) > 0 {
			t.Errorf("SanitizeHTML(%q) left %q", s, bad)
		}
	})
}

// TestSanitizeHTMLDeep: a document past x/net/html's 512 open elements
// (which it refuses to parse) is quoted as its text, escaped.
func TestSanitizeHTMLDeep(t *testing.T) {
	in := strings.Repeat("<div>", 600) + "deep <script>alert(1)</script>text" + strings.Repeat("</div>", 600)
	out := outbox.SanitizeHTML(in)
	if !strings.Contains(out, "deep") || !strings.Contains(out, "text") || strings.Contains(out, "<script") {
		t.Errorf("SanitizeHTML(600 nested divs) = %.300q, want its text without the script", out)
	}
}
