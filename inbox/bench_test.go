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
