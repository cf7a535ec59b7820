package inbox

import (
	"fmt"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// BenchmarkHotWaitFanOut: what one new message costs the waits of 1,000
// test inboxes: every wait checks whether the message is for its inbox
// (isMailFor). Before the header was parsed once per message it was 8.7 ms
// and 6.1 MB per message (scripts/bench/optimizations.md).
func BenchmarkHotWaitFanOut(b *testing.B) {
	raw := []byte("Return-Path: <no-reply@app.example.test>\r\nDelivered-To: alice+signup-1f2e3d4c@example.test\r\n" +
		"Received: from app.example.test by mx.example.test with LMTP id x; Mon, 02 Mar 2026 09:00:00 +0000\r\n" +
		"From: Example App <no-reply@app.example.test>\r\nTo: alice+signup-1f2e3d4c@example.test\r\n" +
		"Subject: Your verification code\r\nMessage-ID: <bench-1@app.example.test>\r\nDate: Mon, 02 Mar 2026 09:00:00 +0000\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nYour verification code is 583920.\r\n")
	addrs := make([]string, 1000)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("alice+signup-%08x@example.test", i)
	}
	perWaiter := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(addrs)), "ns/waiter")
	}
	// What the waits do now (isMailFor): the recipient fields are read once
	// per message, then each waiter only compares. Each round is a new
	// message (a new UID), so the parse is in the figure.
	b.Run("isMailFor", func(b *testing.B) {
		b.ReportAllocs()
		uid, ib := uint32(0), &Inboxes{}
		for b.Loop() {
			uid++
			m := &imap.NewMail{Folder: "INBOX", UID: uid, UIDValidity: 1, Raw: raw}
			for _, a := range addrs {
				if ib.isMailFor(m, a) {
					b.Fatal("a message for another inbox matched")
				}
			}
		}
		perWaiter(b)
	})
}

// benchOTPMail is a multipart/alternative sign-in mail with a code and a
// link, as apps under test send them.
var benchOTPMail = []byte("From: Example App <no-reply@app.example.test>\r\nTo: alice+signup-1f2e3d4c@example.test\r\n" +
	"Subject: Your sign-in code\r\nMessage-ID: <bench-2@app.example.test>\r\nDate: Mon, 02 Mar 2026 09:00:00 +0000\r\n" +
	"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n" +
	"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nYour sign-in code is 583920.\r\n" +
	"Or open https://app.example.test/login/verify?token=abc123 to sign in.\r\n" +
	"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>Your sign-in code is <b>583920</b>.</p>" +
	"<p><a href=\"https://app.example.test/login/verify?token=abc123\">Sign in</a></p></body></html>\r\n--b--\r\n")

// BenchmarkWaitMatch: what a wait does with one new message for its inbox
// (match): wait_for_email with a subject filter, wait_for_otp and
// wait_for_link. Each reads the header and the body at most once.
func BenchmarkWaitMatch(b *testing.B) {
	m := &imap.NewMail{Folder: "INBOX", UID: 1, UIDValidity: 1, Raw: benchOTPMail}
	for _, tt := range []struct {
		name string
		w    Wait
	}{
		{"email", Wait{Want: AnyMail, Accept: func(m *Mail) bool { return m.Header.Subject != "" }}},
		{"otp", Wait{Want: Code}},
		{"link", Wait{Want: Link}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := match(m, 1, tt.w); !ok {
					b.Fatal("no match")
				}
			}
		})
	}
}
