package message_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
	"golang.org/x/net/html"
)

// addTestdataSeeds adds every testdata message to a fuzz corpus.
func addTestdataSeeds(f *testing.F) {
	f.Helper()
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil || len(files) == 0 {
		f.Fatalf("Glob() = %v, %v", files, err)
	}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
}

func FuzzParseBodies(f *testing.F) {
	addTestdataSeeds(f)
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: text/html; charset=shift_jis\r\n\r\n<p>\x93\xfa</p>\r\n--a--"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := message.ParseBodies(raw)
		if err != nil {
			return
		}
		if !utf8.ValidString(b.Text) || !utf8.ValidString(b.HTML) {
			t.Fatalf("ParseBodies() = invalid UTF-8: %q / %q", b.Text, b.HTML)
		}
		if strings.Contains(b.Text, "\r") {
			t.Fatalf("ParseBodies().Text keeps a CR: %q", b.Text)
		}
		if b.TextFromHTML && b.Text != message.HTMLToText(b.HTML) {
			t.Fatalf("TextFromHTML but Text != HTMLToText(HTML)")
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	addTestdataSeeds(f)
	f.Add([]byte("From: =?utf-8?b?4oCu?= <a@b>, \"x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, in := range [][]byte{raw, raw[:len(raw)/2]} { // whole and a prefix
			h, err := message.ParseHeader(in)
			if err != nil {
				continue
			}
			lines := []string{h.Subject, h.MessageID}
			for _, list := range [][]message.Address{h.From, h.To, h.Cc, h.ReplyTo, h.Sender} {
				for _, a := range list {
					lines = append(lines, a.Name, a.Email)
				}
			}
			for _, list := range [][]string{h.InReplyTo, h.References, h.ListUnsubscribe} {
				lines = append(lines, list...)
			}
			for _, s := range lines {
				if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
					t.Fatalf("ParseHeader() field %q: invalid UTF-8 or control character", s)
				}
			}
		}
	})
}

func FuzzHTMLToText(f *testing.F) {
	f.Add("<p>before", "after</p>")
	f.Add("<table><tr><td>", "</td></tr></table>")
	f.Add("<textarea>", "</textarea>")
	f.Add("<svg>", "</svg><p>x</p>")
	f.Add("<a href='https://x.example/'>", "</a>")
	f.Add(`<div style="display:none">`, "</div>")
	f.Fuzz(func(t *testing.T, a, b string) {
		const marker = "SCRIPT_BODY_7f3e"
		doc := a + "<script>" + marker + "</script>" + b
		out := message.HTMLToText(doc)
		if !utf8.ValidString(out) {
			t.Fatalf("HTMLToText() = invalid UTF-8 %q", out)
		}
		if strings.Contains(out, "\n\n\n\n") || strings.HasPrefix(out, "\n") || out != strings.TrimRight(out, " \t\n") {
			t.Fatalf("HTMLToText() = %q: more than two blank lines or blank edges", out)
		}
		checkRendering(t, doc, out)
		// The property only holds when the parser really made the marker
		// script content, and when a+b alone do not already show it (an
		// entity or pieces on both sides can spell it).
		if !onlyInScripts(doc, marker) || strings.Contains(message.HTMLToText(a+b), marker) {
			return
		}
		if strings.Contains(out, marker) {
			t.Fatalf("HTMLToText(%q) = %q: script content survived", doc, out)
		}
	})
}

// checkRendering checks that RenderHTML shows what HTMLToText shows, and
// that its offsets are in order and inside the text.
func checkRendering(t *testing.T, doc, text string) {
	t.Helper()
	r := message.RenderHTML(doc, message.RenderOptions{})
	if r.Text != text {
		t.Fatalf("RenderHTML(%q).Text = %q, want HTMLToText's %q", doc, r.Text, text)
	}
	for _, l := range r.Links {
		if l.Start < 0 || l.Start > l.End || l.End > l.Outer || l.Outer > len(r.Text) {
			t.Fatalf("RenderHTML(%q) link %+v: offsets out of order or outside the text (%d bytes)", doc, l, len(r.Text))
		}
	}
	for _, s := range r.Spans {
		if s.Start < 0 || s.Start > s.End || s.End > len(r.Text) {
			t.Fatalf("RenderHTML(%q) span %+v: offsets out of order or outside the text (%d bytes)", doc, s, len(r.Text))
		}
	}
}

// onlyInScripts reports whether every occurrence of marker in the parsed
// document (text, attributes, comments) is inside a <script> element.
func onlyInScripts(doc, marker string) bool {
	root, err := html.Parse(strings.NewReader(strings.ToValidUTF8(doc, "\uFFFD")))
	if err != nil {
		return false
	}
	inScript, elsewhere := 0, 0
	var walk func(n *html.Node, script bool)
	walk = func(n *html.Node, script bool) {
		if n.Type == html.ElementNode && strings.EqualFold(n.Data, "script") {
			script = true
		}
		for _, at := range n.Attr {
			elsewhere += strings.Count(at.Val, marker) + strings.Count(at.Key, marker)
		}
		c := strings.Count(n.Data, marker)
		if n.Type == html.TextNode && script {
			inScript += c
		} else {
			elsewhere += c
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch, script)
		}
	}
	walk(root, false)
	return inScript > 0 && elsewhere == 0
}

func FuzzWindow(f *testing.F) {
	f.Add("hello world", 3)
	f.Add("日本語テキスト🙂", 2)
	f.Add("a\xffb\xc3", 1)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, size int) {
		var b strings.Builder
		offset := 0
		for range utf8.RuneCountInString(s) + 2 { // each round takes at least one rune
			chunk, truncated, next := message.Window(s, offset, size)
			if size > 0 && utf8.RuneCountInString(chunk) > size {
				t.Fatalf("Window(%q, %d, %d) = %d runes", s, offset, size, utf8.RuneCountInString(chunk))
			}
			b.WriteString(chunk)
			if !truncated {
				if b.String() != s {
					t.Fatalf("windows of %q (size %d) join to %q", s, size, b.String())
				}
				return
			}
			if next <= offset {
				t.Fatalf("Window(%q, %d, %d) next = %d, no progress", s, offset, size, next)
			}
			offset = next
		}
		t.Fatalf("windows of %q (size %d) never end", s, size)
	})
}
