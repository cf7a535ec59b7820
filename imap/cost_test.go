package imap_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// seedMany delivers n messages in-process: UID i comes from
// sender<i%100>@example.test; every tenth has an attachment.
func seedMany(t testing.TB, ts *testServer, folder string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		m := testMsg{from: fmt.Sprintf("sender%d@example.test", i%100), to: "alice@example.test",
			subject: fmt.Sprintf("Message %d", i), body: "Hello, this is message number " + fmt.Sprint(i),
			id: fmt.Sprintf("m%d@example.test", i), date: day(2024, 1, 1)}
		if i%10 == 0 {
			m.attachment = "a.pdf"
		}
		ts.deliver(t, folder, rawMessage(m), day(2024, 1, 1))
	}
}

// TestSearchCommandCount: a search costs the same commands on 10,000
// messages as on 100.
func TestSearchCommandCount(t *testing.T) {
	for _, caps := range []goimap.CapSet{capsFull, capsBasic} {
		var seen [][]string
		for _, n := range []int{100, 10000} {
			ts := newTestServer(t, modePlain, caps)
			seedMany(t, ts, "INBOX", n)
			c := newClient(t, clientOptions(t, ts.Port, modePlain))
			ctx := context.Background()
			if err := c.Noop(ctx); err != nil {
				t.Fatalf("Noop() = %v", err)
			}
			ts.commands()
			res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 50})
			if err != nil || res.Total != n || len(res.Messages) != 50 || res.Messages[0].UID != uint32(n) {
				t.Fatalf("Search(%d messages) = %v; want 50 of %d, newest first", n, err, n)
			}
			first := ts.commands()
			page := imap.PageRequest{Limit: 50, BeforeUID: res.NextBeforeUID, UIDValidity: res.UIDValidity}
			res, err = c.Search(ctx, "INBOX", imap.SearchCriteria{From: "sender7@"}, page)
			if err != nil || res.Total != n/100 || len(res.Messages) == 0 {
				t.Fatalf("Search(from, %d messages) = %+v, %v; want %d matches", n, res, err, n/100)
			}
			seen = append(seen, first, ts.commands())
		}
		want := [][]string{
			{"EXAMINE", "UID SEARCH", "UID FETCH"}, {"UID SEARCH", "UID FETCH"},
			{"EXAMINE", "UID SEARCH", "UID FETCH"}, {"UID SEARCH", "UID FETCH"},
		}
		if !slices.EqualFunc(seen, want, slices.Equal) {
			t.Errorf("commands (100 then 10,000 messages; first and second search) = %q, want %q", seen, want)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	ts := newTestServer(b, modePlain, capsFull)
	seedMany(b, ts, "INBOX", 10000)
	c := newClient(b, clientOptions(b, ts.Port, modePlain))
	for _, bc := range []struct {
		name string
		crit imap.SearchCriteria
		page imap.PageRequest
	}{
		{"newest-50", imap.SearchCriteria{}, imap.PageRequest{Limit: 50}},
		{"deep-page", imap.SearchCriteria{}, imap.PageRequest{Limit: 50, BeforeUID: 5000}},
		{"from-filter", imap.SearchCriteria{From: "sender42@"}, imap.PageRequest{Limit: 50}},
		{"unread-with-attachments", imap.SearchCriteria{Unread: ptr(true), HasAttachments: ptr(true)}, imap.PageRequest{Limit: 50}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Search(context.Background(), "INBOX", bc.crit, bc.page); err != nil {
					b.Fatalf("Search() = %v", err)
				}
			}
		})
	}
}
