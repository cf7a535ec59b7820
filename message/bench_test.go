package message_test

import (
	"bytes"
	"mime/quotedprintable"
	"strconv"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

// bigHTMLMail builds a ~1 MB HTML-only newsletter, quoted-printable encoded
// as bulk mailers send it: nested layout tables, a hidden preheader, links,
// lists, entities and tracking pixels.
func bigHTMLMail(tb testing.TB) []byte {
	tb.Helper()
	var h strings.Builder
	h.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>.btn{color:#fff}</style></head><body>`)
	h.WriteString(`<div style="display:none;max-height:0;overflow:hidden">Preheader text&zwnj;&nbsp;</div>`)
	for i := 0; h.Len() < 1<<20; i++ {
		n := strconv.Itoa(i)
		h.WriteString(`<table role="presentation" width="100%"><tr><td align="center"><table width="600"><tr><td>`)
		h.WriteString(`<h2>Article ` + n + ` &mdash; caf&eacute; news</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do <strong>eiusmod</strong> tempor incididunt ut labore et dolore magna aliqua.</p>`)
		h.WriteString(`<ul><li>Point one for ` + n + `</li><li>Point two &euro;` + n + `</li></ul>`)
		h.WriteString(`<a class="btn" href="https://click.example.com/track?u=` + n + `&amp;c=spring">Read more</a>`)
		h.WriteString(`<img src="https://img.example.com/` + n + `.jpg" alt="Photo ` + n + `" width="560">`)
		h.WriteString(`</td><td>Price</td><td>&euro;` + n + `.00</td></tr></table></td></tr></table>`)
		h.WriteString(`<img src="https://t.example.com/o/` + n + `.gif" width="1" height="1" alt="">`)
	}
	h.WriteString(`</body></html>`)
	var b bytes.Buffer
	b.WriteString("From: News <news@example.com>\r\nTo: bob@example.com\r\nSubject: Big newsletter\r\n" +
		"Date: Wed, 20 Mar 2024 08:00:00 +0000\r\nMessage-ID: <big@example.com>\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	w := quotedprintable.NewWriter(&b)
	if _, err := w.Write([]byte(h.String())); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestBigHTMLMail(t *testing.T) {
	b, err := message.ParseBodies(bigHTMLMail(t))
	if err != nil || !b.TextFromHTML || len(b.HTML) < 1<<20 {
		t.Fatalf("ParseBodies(big) = %d bytes of HTML, fromHTML %v, %v", len(b.HTML), b.TextFromHTML, err)
	}
	for _, want := range []string{"Article 0 — café news", "Read more (https://click.example.com/track?u=1&c=spring)", "- Point two €2", "[image: Photo 3]"} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("Text lacks %q", want)
		}
	}
	if strings.Contains(b.Text, "Preheader") || strings.Contains(b.Text, ".gif") {
		t.Errorf("Text shows the preheader or a tracking pixel")
	}
}

func BenchmarkParseBodiesHTML1MB(b *testing.B) {
	raw := bigHTMLMail(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := message.ParseBodies(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTMLToText1MB(b *testing.B) {
	body, err := message.ParseBodies(bigHTMLMail(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body.HTML)))
	b.ReportAllocs()
	for b.Loop() {
		message.HTMLToText(body.HTML)
	}
}
