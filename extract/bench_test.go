package extract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/extract"
)

// marketingMail builds a newsletter-style HTML mail of about size bytes:
// nested layout tables, inline styles, tracked links, prices, dates, images,
// a footer, and one sign-in code with its button near the top.
func marketingMail(size int) extract.Message {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><style>.btn{color:#1a73e8;background:#fafafa}` +
		`@media (max-width:600px){.col{width:100%!important}}</style></head><body>` +
		`<div style="display:none">Spring sale &zwnj;&nbsp;&zwnj;&nbsp;</div>` +
		`<table width="600" cellpadding="0"><tr><td><p>Your sign-in code:</p>` +
		`<p style="font-size:30px;letter-spacing:6px"><b>573 921</b></p>` +
		`<a class="btn" href="https://click.example.test/ls/click?upn=u001.sign-in-AbC123">Sign in</a></td></tr>`)
	for i := 0; b.Len() < size-600; i++ {
		fmt.Fprintf(&b, `<tr><td class="col" style="padding:12px;font-family:Arial"><table><tr>`+
			`<td><a href="https://click.example.test/ls/click?upn=u001.p%[1]d&amp;ref=news"><img src="https://cdn.example.test/p/%[1]d.jpg" width="120" alt="Product %[1]d"></a></td>`+
			`<td><h3 style="font-size:18px">Product %[1]d – now $%[1]d9.99</h3><p>Order by 2025-04-%02[2]d, ships in %[3]d days. `+
			`SKU %[1]d4471 · Call 1-800-555-%04[1]d · Save %[3]d0%%.</p>`+
			`<a href="https://www.google.com/url?q=https%%3A%%2F%%2Fshop.example.test%%2Fp%%2F%[1]d&amp;sa=D">Shop now</a></td>`+
			`</tr></table></td></tr>`, i, i%28+1, i%9+1)
	}
	b.WriteString(`<tr><td><p>&copy; 2025 Acme Inc., 500 Howard St, San Francisco, CA 94105</p>` +
		`<a href="https://example.test/privacy">Privacy</a> · <a href="https://example.test/unsubscribe?u=1">Unsubscribe</a>` +
		`<img src="https://t.example.test/o.gif" width="1" height="1"></td></tr></table></body></html>`)
	return extract.Message{Subject: "Spring sale + your sign-in code", HTML: b.String(),
		Headers: map[string][]string{"List-Unsubscribe": {"<https://example.test/unsubscribe?u=1>"}}}
}

func TestMarketingMail(t *testing.T) {
	m := marketingMail(200_000)
	if otp, ok := extract.BestOTP(m); !ok || otp.Code != "573921" {
		t.Errorf("BestOTP(marketing) = %+v, %v; want 573921", otp, ok)
	}
	if l, ok := extract.BestLink(m); !ok || l.URL != "https://click.example.test/ls/click?upn=u001.sign-in-AbC123" {
		t.Errorf("BestLink(marketing) = %+v, %v; want the sign-in button", l, ok)
	}
}

func BenchmarkOTPs(b *testing.B) {
	m := marketingMail(200_000)
	b.SetBytes(int64(len(m.HTML)))
	b.ReportAllocs()
	for b.Loop() {
		extract.OTPs(m)
	}
}

func BenchmarkLinks(b *testing.B) {
	m := marketingMail(200_000)
	b.SetBytes(int64(len(m.HTML)))
	b.ReportAllocs()
	for b.Loop() {
		extract.Links(m)
	}
}

func BenchmarkHTMLToText(b *testing.B) {
	m := marketingMail(200_000)
	b.SetBytes(int64(len(m.HTML)))
	b.ReportAllocs()
	for b.Loop() {
		extract.HTMLToText(m.HTML)
	}
}
