package extract_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/extract"
)

// Benchmarks of the extraction wait_for_otp and wait_for_link run on each
// new message of a test inbox: typical transactional mail of a few KB (the
// 200 KB newsletter is in bench_test.go).
//
//	go test ./extract -run '^$' -bench Hot -benchmem

// hotPlainOTP is a short plain-text sign-up mail.
func hotPlainOTP() extract.Message {
	return extract.Message{Subject: "Your verification code",
		Text: "Hello,\n\nYour verification code is 583920. It expires in 10 minutes.\n\n" +
			"If you did not sign up for Example App, ignore this mail.\n\nExample App, 500 Howard St, San Francisco, CA 94105\n"}
}

// hotHTMLMail is a ~8 KB transactional HTML mail (layout tables, inline
// styles, a code in a large letter-spaced cell, a verify button through a
// click tracker, a footer with unsubscribe and help links) and its text
// alternative.
func hotHTMLMail() extract.Message {
	var h strings.Builder
	h.WriteString(`<!DOCTYPE html><html><head><style>td{font-family:Arial}.btn{background:#1a73e8;color:#fff}</style></head><body>` +
		`<div style="display:none">Confirm your address&zwnj;&nbsp;</div><table width="600" align="center" cellpadding="0">`)
	for i := range 12 {
		h.WriteString(`<tr><td style="padding:8px 24px;color:#333;font-size:14px;line-height:20px">`)
		switch i {
		case 3:
			h.WriteString(`Your confirmation code is:</td></tr><tr><td style="font-size:32px;letter-spacing:8px;font-weight:bold">741 902`)
		case 5:
			h.WriteString(`<a class="btn" href="https://click.example.test/ls/click?upn=u001.verify-Xy7Qk2&amp;u=42">Verify my email</a>`)
		default:
			h.WriteString(`We are glad you joined Example App. Your order history, saved items and settings are in your account; ` +
				`our team answers questions every day from 8:00 to 18:00, call 1-800-555-0199 or reply to this mail.`)
		}
		h.WriteString(`</td></tr>`)
	}
	h.WriteString(`<tr><td style="font-size:11px;color:#999">© 2026 Example Inc. · <a href="https://example.test/help">Help</a> · ` +
		`<a href="https://example.test/privacy">Privacy</a> · <a href="https://example.test/unsubscribe?u=42">Unsubscribe</a></td></tr></table></body></html>`)
	return extract.Message{Subject: "Confirm your Example App account", HTML: h.String(),
		Text:    "Your confirmation code is: 741 902\nVerify my email: https://click.example.test/ls/click?upn=u001.verify-Xy7Qk2&u=42\n",
		Headers: map[string][]string{"List-Unsubscribe": {"<https://example.test/unsubscribe?u=42>"}}}
}

// TestHotMails checks what the benchmarks find.
func TestHotMails(t *testing.T) {
	if otp, ok := extract.BestOTP(hotPlainOTP()); !ok || otp.Code != "583920" {
		t.Errorf("BestOTP(plain) = %+v, %v; want 583920", otp, ok)
	}
	m := hotHTMLMail()
	if otp, ok := extract.BestOTP(m); !ok || otp.Code != "741902" {
		t.Errorf("BestOTP(html) = %+v, %v; want 741902", otp, ok)
	}
	if l, ok := extract.BestLink(m); !ok || !strings.Contains(l.URL, "verify-Xy7Qk2") {
		t.Errorf("BestLink(html) = %+v, %v; want the verify button", l, ok)
	}
}

func BenchmarkHotBestOTP(b *testing.B) {
	for _, bc := range []struct {
		name string
		m    extract.Message
	}{{"plain-300B", hotPlainOTP()}, {"html-8KB", hotHTMLMail()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.m.Text) + len(bc.m.HTML)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := extract.BestOTP(bc.m); !ok {
					b.Fatal("no code")
				}
			}
		})
	}
}

func BenchmarkHotBestLink(b *testing.B) {
	m := hotHTMLMail()
	b.SetBytes(int64(len(m.Text) + len(m.HTML)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := extract.BestLink(m); !ok {
			b.Fatal("no link")
		}
	}
}
