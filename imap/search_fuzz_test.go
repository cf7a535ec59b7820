package imap_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/email-mcp/email-mcp/imap"
)

// FuzzSearchCriteria builds searches from arbitrary terms and dates and runs
// them against an in-process server holding searchMessages. Properties:
// every search ends; terms without control characters (tools refuse those
// before they get here) never make the search fail; every UID found is one
// of the folder's, newest first, and Total is at least the page.
func FuzzSearchCriteria(f *testing.F) {
	f.Add("alice", "", "Quarterly", "", "", int64(0), int64(0), uint8(0))
	f.Add("", "bob@example.test", "", "PDF", "", int64(1710000000), int64(1716000000), uint8(3))
	f.Add("山田", "", "Grüße", "", "\"quoted\" {5}\\ *", int64(0), int64(-1), uint8(9))
	f.Add("", "", "", "", "a%b(c)", int64(253402300000), int64(0), uint8(255))
	ts := newTestServer(f, modePlain, capsFull)
	seedSearch(f, ts, "INBOX")
	c := newClient(f, clientOptions(f, ts.Port, modePlain))
	f.Fuzz(func(t *testing.T, from, to, subject, body, text string, since, before int64, flags uint8) {
		for _, s := range []string{from, to, subject, body, text} {
			if strings.IndexFunc(s, unicode.IsControl) >= 0 || len(s) > 1024 {
				return
			}
		}
		crit := imap.SearchCriteria{From: from, To: to, Subject: subject, Body: body, Text: text,
			Since: fuzzTime(since), Before: fuzzTime(before)}
		yes, no := true, false
		for bit, p := range []**bool{&crit.Unread, &crit.Flagged, &crit.HasAttachments} {
			switch (flags >> (2 * bit)) & 3 {
			case 1:
				*p = &yes
			case 2:
				*p = &no
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := c.Search(ctx, "INBOX", crit, imap.PageRequest{Limit: 3})
		if err != nil {
			t.Fatalf("Search(%+v) = %v, want a result", crit, err)
		}
		if res.Total < len(res.Messages) || len(res.Messages) > 3 {
			t.Fatalf("Search(%+v): total %d, page %d", crit, res.Total, len(res.Messages))
		}
		for i, m := range res.Messages {
			if m.UID < 1 || int(m.UID) > len(searchMessages) || i > 0 && m.UID >= res.Messages[i-1].UID {
				t.Fatalf("Search(%+v) = UIDs %v: unknown or not newest first", crit, uidsOf(res))
			}
		}
	})
}

// fuzzTime maps a fuzzed number to a time: 0 is unset, anything else a
// date within years 1..9999 (IMAP dates have four-digit years).
func fuzzTime(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	const span = 253402300799 + 62135596800 // 0001-01-01 .. 9999-12-31 in seconds
	s := sec % span
	if s < 0 {
		s += span
	}
	return time.Unix(s-62135596800, 0).UTC()
}
