package message_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

// RenderHTML's links point at their text in Text: what the extractors
// score is what read_email shows.
func TestRenderHTMLLinks(t *testing.T) {
	h := `<p>Hello <b>Jane</b>,</p><p>Please <a href=" https://ex.test/v?t=1&amp;u=2 ">confirm your
	address</a> or <a href="https://ex.test/help">https://ex.test/help</a>.</p>` +
		`<a href="https://ex.test/logo"><img src="l.png" alt="Acme"></a>` +
		`<a class="btn" href="https://ex.test/go"><span>Go</span></a><a href="#top">Top</a>`
	r := message.RenderHTML(h, message.RenderOptions{})
	want := []struct {
		href, text, shown, tail string
		image, button           bool
	}{
		{"https://ex.test/v?t=1&u=2", "confirm your address", "confirm your address", " (https://ex.test/v?t=1&u=2)", false, false},
		{"https://ex.test/help", "https://ex.test/help", "https://ex.test/help", "", false, false},
		{"https://ex.test/logo", "Acme", "[image: Acme]", " (https://ex.test/logo)", true, false},
		{"https://ex.test/go", "Go", "Go", " (https://ex.test/go)", false, true},
		{"#top", "Top", "Top", "", false, false},
	}
	if len(r.Links) != len(want) {
		t.Fatalf("RenderHTML(%q).Links = %+v, want %d links", h, r.Links, len(want))
	}
	for i, w := range want {
		l := r.Links[i]
		if l.Href != w.href || l.Text != w.text || l.Image != w.image || l.Button != w.button {
			t.Errorf("link %d = %+v, want href %q text %q image %v button %v", i, l, w.href, w.text, w.image, w.button)
		}
		if got := r.Text[l.Start:l.End]; got != w.shown {
			t.Errorf("link %d: Text[Start:End] = %q, want %q (Text %q)", i, got, w.shown, r.Text)
		}
		if got := r.Text[l.End:l.Outer]; got != w.tail {
			t.Errorf("link %d: Text[End:Outer] = %q, want %q", i, got, w.tail)
		}
	}
	if got := r.Text; got != message.HTMLToText(h) {
		t.Errorf("RenderHTML().Text = %q, want HTMLToText's %q", got, message.HTMLToText(h))
	}
}

// Offsets stay right where finishing the text trims trailing blanks and
// caps blank lines (a <pre> with blank-only lines before the link).
func TestRenderHTMLOffsetsAfterTrim(t *testing.T) {
	h := "<pre>a   \n \n \n \n \nb  </pre><p>see <a href=\"https://ex.test/x\">this page</a></p>"
	r := message.RenderHTML(h, message.RenderOptions{})
	if len(r.Links) != 1 {
		t.Fatalf("RenderHTML(%q).Links = %+v, want 1", h, r.Links)
	}
	l := r.Links[0]
	if got := r.Text[l.Start:l.End]; got != "this page" {
		t.Errorf("Text[Start:End] = %q, want %q (Text %q)", got, "this page", r.Text)
	}
	if got := r.Text[l.End:l.Outer]; got != " (https://ex.test/x)" {
		t.Errorf("Text[End:Outer] = %q, want %q", got, " (https://ex.test/x)")
	}
}

// Spans are the short blocks and the emphasized elements, by their text.
func TestRenderHTMLSpans(t *testing.T) {
	h := `<p>Your code:</p><div style="font-size:28px; letter-spacing:4px">482 913</div>` +
		`<p>It expires in <strong>10 minutes</strong> and this sentence is far too long to be a span.</p>`
	r := message.RenderHTML(h, message.RenderOptions{})
	got := map[string]bool{}
	for _, s := range r.Spans {
		got[strings.TrimSpace(r.Text[s.Start:s.End])] = s.Emphasized
	}
	want := map[string]bool{"Your code:": false, "482 913": true, "10 minutes": true}
	if !maps.Equal(got, want) {
		t.Errorf("RenderHTML(%q) spans = %v, want %v", h, got, want)
	}
}

// OmitQuoted leaves out the quoted reply history that people see.
func TestRenderHTMLOmitQuoted(t *testing.T) {
	h := `<p>New code 111111</p><div class="gmail_quote"><p>Old code 222222</p></div>` +
		`<blockquote type="cite">older 333333</blockquote>`
	if got, want := message.RenderHTML(h, message.RenderOptions{OmitQuoted: true}).Text, "New code 111111"; got != want {
		t.Errorf("RenderHTML(OmitQuoted).Text = %q, want %q", got, want)
	}
	if got := message.HTMLToText(h); !strings.Contains(got, "222222") || !strings.Contains(got, "> older 333333") {
		t.Errorf("HTMLToText = %q, want the quoted history shown", got)
	}
}

// Outlook puts the header of the quoted mail in a div of its own and the
// quoted mail after it as siblings: all of that is history.
func TestRenderHTMLOmitOutlookHistory(t *testing.T) {
	for _, h := range []string{
		`<div>New code 111111</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> Acme</div>` +
			`<div><p>Old code 222222</p><a href="https://a.test/v?t=1">Verify</a></div>`,
		`<div>New code 111111</div><div id="OLK_SRC_BODY_SECTION"><b>From:</b> Acme</div><p>Old code 222222</p>`,
	} {
		r := message.RenderHTML(h, message.RenderOptions{OmitQuoted: true})
		if got := strings.TrimSpace(r.Text); got != "New code 111111" || len(r.Links) != 0 {
			t.Errorf("RenderHTML(OmitQuoted) = %q, %d links; want only the new text", got, len(r.Links))
		}
		if got := message.HTMLToText(h); !strings.Contains(got, "222222") {
			t.Errorf("HTMLToText = %q, want the quoted history shown", got)
		}
	}
}

// A link's text and offsets leave out the layout written before it: a
// cell separator, a list marker, a quote's "> ".
func TestRenderHTMLLinkLayout(t *testing.T) {
	h := `<table><tr><td>Name</td><td><a href="https://ex.test/a">Open it</a></td></tr></table>` +
		`<ul><li><a href="https://ex.test/b">Item link</a></li></ul>` +
		`<blockquote><a href="https://ex.test/c">Quoted link</a></blockquote>`
	r := message.RenderHTML(h, message.RenderOptions{})
	want := []string{"Open it", "Item link", "Quoted link"}
	if len(r.Links) != len(want) {
		t.Fatalf("RenderHTML(%q).Links = %+v, want %d", h, r.Links, len(want))
	}
	for i, w := range want {
		l := r.Links[i]
		if l.Text != w || r.Text[l.Start:l.End] != w {
			t.Errorf("link %d: Text %q, Text[Start:End] %q; want %q (Text %q)", i, l.Text, r.Text[l.Start:l.End], w, r.Text)
		}
	}
}
