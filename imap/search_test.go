package imap_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// searchMessages are delivered to INBOX in this order: UIDs 1 to 6.
var searchMessages = []struct {
	m     testMsg
	flags []goimap.Flag
}{
	{testMsg{from: "Alice Example <alice@example.test>", to: "bob@example.test", subject: "Quarterly report",
		body: "Numbers for Q1 are attached.", id: "msg-1@example.test", date: day(2024, 3, 10), attachment: "report.pdf"},
		[]goimap.Flag{goimap.FlagSeen, goimap.FlagFlagged}},
	{testMsg{from: "carol@example.test", to: "dave@example.test", subject: "Grüße aus Köln",
		body: "Hallo Dave, viele Grüße.", id: "msg-2@example.test", date: day(2024, 3, 15)}, nil},
	{testMsg{from: "山田 太郎 <taro@example.jp>", to: "alice@example.test", subject: "日本語の件名",
		body: "こんにちは", id: "msg-3@example.test", date: day(2024, 4, 1)}, []goimap.Flag{goimap.FlagSeen}},
	{testMsg{from: "alice@example.test", to: "carol@example.test", subject: "Lunch on Friday",
		body: "pizza?", id: "msg-4@example.test", date: day(2024, 4, 20)}, []goimap.Flag{goimap.FlagSeen, goimap.FlagAnswered}},
	{testMsg{from: "dave@example.test", to: "bob@example.test", subject: "Invoice",
		body: "see the PDF", id: "msg-5@example.test", date: day(2024, 5, 2), attachment: "invoice.pdf"},
		[]goimap.Flag{goimap.FlagFlagged}},
	{testMsg{from: "bob@example.test", to: "alice@example.test", subject: "Re: Quarterly report",
		body: "thanks", id: "msg-6@example.test", date: day(2024, 5, 10)}, nil},
}

// seedSearch delivers searchMessages to folder, the INTERNALDATE being the
// Date header plus 10 hours.
func seedSearch(t testing.TB, ts *testServer, folder string) {
	t.Helper()
	for i, sm := range searchMessages {
		if uid := ts.deliver(t, folder, rawMessage(sm.m), sm.m.date.Add(10*time.Hour), sm.flags...); uid != uint32(i+1) {
			t.Fatalf("deliver #%d got UID %d", i+1, uid)
		}
	}
}

func uidsOf(res *imap.SearchResult) []uint32 {
	uids := []uint32{}
	for _, m := range res.Messages {
		uids = append(uids, m.UID)
	}
	return uids
}

func TestSearchFilters(t *testing.T) {
	tests := []struct {
		name string
		crit imap.SearchCriteria
		want []uint32
	}{
		{"all", imap.SearchCriteria{}, []uint32{6, 5, 4, 3, 2, 1}},
		{"from", imap.SearchCriteria{From: "alice"}, []uint32{4, 1}},
		{"from display name", imap.SearchCriteria{From: "Alice Example"}, []uint32{1}},
		{"to", imap.SearchCriteria{To: "bob@"}, []uint32{5, 1}},
		{"subject, any case", imap.SearchCriteria{Subject: "REPORT"}, []uint32{6, 1}},
		{"body", imap.SearchCriteria{Body: "pizza"}, []uint32{4}},
		{"body misses headers", imap.SearchCriteria{Body: "Lunch on Friday"}, []uint32{}},
		{"text in header", imap.SearchCriteria{Text: "example.jp"}, []uint32{3}},
		{"text in body", imap.SearchCriteria{Text: "Numbers for Q1"}, []uint32{1}},
		{"since, inclusive", imap.SearchCriteria{Since: day(2024, 4, 1)}, []uint32{6, 5, 4, 3}},
		{"before, exclusive", imap.SearchCriteria{Before: day(2024, 4, 1)}, []uint32{2, 1}},
		{"since and before", imap.SearchCriteria{Since: day(2024, 3, 12), Before: day(2024, 4, 21)}, []uint32{4, 3, 2}},
		{"since, date part of a local time", imap.SearchCriteria{Since: time.Date(2024, 4, 20, 23, 30, 0, 0, time.FixedZone("X", -8*3600))}, []uint32{6, 5, 4}},
		{"unread", imap.SearchCriteria{Unread: ptr(true)}, []uint32{6, 5, 2}},
		{"read", imap.SearchCriteria{Unread: ptr(false)}, []uint32{4, 3, 1}},
		{"flagged", imap.SearchCriteria{Flagged: ptr(true)}, []uint32{5, 1}},
		{"not flagged", imap.SearchCriteria{Flagged: ptr(false)}, []uint32{6, 4, 3, 2}},
		{"has attachments", imap.SearchCriteria{HasAttachments: ptr(true)}, []uint32{5, 1}},
		{"no attachments", imap.SearchCriteria{HasAttachments: ptr(false)}, []uint32{6, 4, 3, 2}},
		{"message id", imap.SearchCriteria{MessageID: "msg-6@example.test"}, []uint32{6}},
		{"message id in brackets", imap.SearchCriteria{MessageID: "<msg-2@example.test>"}, []uint32{2}},
		{"combined", imap.SearchCriteria{From: "alice", Unread: ptr(false), Since: day(2024, 4, 1)}, []uint32{4}},
		{"combined, attachments and unread", imap.SearchCriteria{HasAttachments: ptr(true), Unread: ptr(true)}, []uint32{5}},
		{"non-ASCII subject", imap.SearchCriteria{Subject: "Grüße"}, []uint32{2}},
		{"CJK subject", imap.SearchCriteria{Subject: "日本"}, []uint32{3}},
		{"non-ASCII display name", imap.SearchCriteria{From: "山田"}, []uint32{3}},
		{"non-ASCII body", imap.SearchCriteria{Body: "viele Grüße"}, []uint32{2}},
		{"no match", imap.SearchCriteria{Subject: "nothing like this"}, []uint32{}},
		{"recipient in To", imap.SearchCriteria{Recipient: "bob@"}, []uint32{5, 1}},
		{"recipient and from", imap.SearchCriteria{Recipient: "alice@", From: "bob"}, []uint32{6}},
	}
	for _, caps := range []struct {
		name string
		set  goimap.CapSet
	}{{"SEARCH", capsBasic}, {"ESEARCH", capsFull}} {
		t.Run(caps.name, func(t *testing.T) {
			ts := newTestServer(t, modePlain, caps.set)
			seedSearch(t, ts, "INBOX")
			c := newClient(t, clientOptions(t, ts.Port, modePlain))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := c.Search(context.Background(), "INBOX", tt.crit, imap.PageRequest{Limit: 50})
					if err != nil {
						t.Fatalf("Search(%+v) = %v, want nil", tt.crit, err)
					}
					if got := uidsOf(res); !slices.Equal(got, tt.want) || res.Total != len(tt.want) {
						t.Errorf("Search(%+v) = UIDs %v, total %d; want %v", tt.crit, got, res.Total, tt.want)
					}
				})
			}
		})
	}
}

func TestSearchSummary(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	res, err := c.Search(context.Background(), "inbox", imap.SearchCriteria{}, imap.PageRequest{Limit: 6})
	if err != nil {
		t.Fatalf("Search() = %v, want nil", err)
	}
	if res.Folder != "INBOX" || res.UIDValidity == 0 || res.NextBeforeUID != 0 || len(res.Messages) != 6 {
		t.Fatalf("Search() = folder %q, uidvalidity %d, next %d, %d messages", res.Folder, res.UIDValidity, res.NextBeforeUID, len(res.Messages))
	}
	m1, m3 := res.Messages[5], res.Messages[3]
	want1 := imap.Summary{
		UID: 1, MessageID: "msg-1@example.test", Subject: "Quarterly report",
		From: []imap.Address{{Name: "Alice Example", Email: "alice@example.test"}},
		To:   []imap.Address{{Email: "bob@example.test"}},
		Date: day(2024, 3, 10), InternalDate: day(2024, 3, 10).Add(10 * time.Hour),
		Seen: true, Flagged: true, HasAttachments: true,
		Size: int64(len(rawMessage(searchMessages[0].m))),
	}
	flags := m1.Flags
	m1.Flags = nil
	if !m1.Date.Equal(want1.Date) || !m1.InternalDate.Equal(want1.InternalDate) {
		t.Errorf("dates = %v, %v; want %v, %v", m1.Date, m1.InternalDate, want1.Date, want1.InternalDate)
	}
	m1.Date, m1.InternalDate = want1.Date, want1.InternalDate
	if !equalSummary(m1, want1) {
		t.Errorf("summary of UID 1 = %+v\nwant %+v", m1, want1)
	}
	if slices.Sort(flags); !slices.Equal(flags, []string{`\Flagged`, `\Seen`}) {
		t.Errorf("Flags = %q, want [\\Flagged \\Seen]", flags)
	}
	if m3.Subject != "日本語の件名" || len(m3.From) != 1 || m3.From[0].Name != "山田 太郎" || m3.Seen != true || m3.HasAttachments {
		t.Errorf("summary of UID 3 = %+v, want decoded subject and name", m3)
	}
	if m4 := res.Messages[2]; !m4.Answered || m4.Flagged {
		t.Errorf("summary of UID 4 = %+v, want Answered", m4)
	}
}

func equalSummary(a, b imap.Summary) bool {
	return a.UID == b.UID && a.MessageID == b.MessageID && a.Subject == b.Subject &&
		slices.Equal(a.From, b.From) && slices.Equal(a.To, b.To) && a.Date.Equal(b.Date) &&
		a.Seen == b.Seen && a.Flagged == b.Flagged && a.Answered == b.Answered &&
		a.HasAttachments == b.HasAttachments && a.Size == b.Size
}

func TestSearchPaging(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	for i := range 120 {
		ts.deliver(t, "INBOX", rawMessage(testMsg{from: "a@example.test", to: "b@example.test", subject: "n", body: "x"}),
			day(2024, 1, 1).Add(time.Duration(i)*time.Minute))
	}
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	var (
		got   []uint32
		sizes []int
		page  = imap.PageRequest{Limit: 50}
	)
	for range 10 { // bounded: 3 pages expected
		res, err := c.Search(context.Background(), "INBOX", imap.SearchCriteria{}, page)
		if err != nil {
			t.Fatalf("Search(%+v) = %v, want nil", page, err)
		}
		if res.Total != 120 {
			t.Errorf("Search(%+v).Total = %d, want 120", page, res.Total)
		}
		got = append(got, uidsOf(res)...)
		sizes = append(sizes, len(res.Messages))
		if res.NextBeforeUID == 0 {
			break
		}
		page = imap.PageRequest{Limit: 50, BeforeUID: res.NextBeforeUID, UIDValidity: res.UIDValidity}
	}
	if !slices.Equal(sizes, []int{50, 50, 20}) {
		t.Errorf("page sizes = %v, want [50 50 20]", sizes)
	}
	for i, u := range got { // newest first, no overlap, no gap
		if u != uint32(120-i) {
			t.Fatalf("UIDs over all pages = %v, want 120 down to 1", got)
		}
	}
	if len(got) != 120 {
		t.Errorf("got %d UIDs over all pages, want 120", len(got))
	}
}

func TestSearchUIDValidity(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	first, err := c.Search(context.Background(), "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 2})
	if err != nil {
		t.Fatalf("Search() = %v, want nil", err)
	}
	v, err := c.UIDValidity(context.Background(), "INBOX")
	if err != nil || v != first.UIDValidity {
		t.Errorf("UIDValidity() = %d, %v; want %d, nil", v, err, first.UIDValidity)
	}
	page := imap.PageRequest{Limit: 2, BeforeUID: first.NextBeforeUID, UIDValidity: first.UIDValidity}
	if _, err := c.Search(context.Background(), "INBOX", imap.SearchCriteria{}, page); err != nil {
		t.Errorf("Search() with the right UIDVALIDITY = %v, want nil", err)
	}
	page.UIDValidity++
	_, err = c.Search(context.Background(), "INBOX", imap.SearchCriteria{}, page)
	if !errors.Is(err, imap.ErrUIDValidityChanged) {
		t.Errorf("Search() with another UIDVALIDITY = %v, want ErrUIDValidityChanged", err)
	}
	if st := c.Stats(); st.Dials != 1 || st.Discards != 0 {
		t.Errorf("Stats() = %+v, want the connection kept after the verdict", st)
	}
}

// TestSearchSeesFolderChanges: the selection a connection keeps does not
// hide new mail, and a folder recreated under it (new UIDVALIDITY) is seen
// once the server has ended the stale session.
func TestSearchSeesFolderChanges(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Box", "")
	seedSearch(t, ts, "Box")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	first, err := c.Search(ctx, "Box", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil {
		t.Fatalf("Search() = %v, want nil", err)
	}
	uid := ts.deliver(t, "Box", rawMessage(testMsg{from: "new@example.test", subject: "new"}), time.Now())
	ts.commands()
	res, err := c.Search(ctx, "Box", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || res.Total != 7 || res.Messages[0].UID != uid {
		t.Fatalf("Search() after new mail = %+v, %v; want 7 messages, UID %d first", res, err, uid)
	}
	// The first UID SEARCH ran on the session's old view, and its answer
	// reported the new message (EXISTS): it runs again on the new view.
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID SEARCH", "UID SEARCH", "UID FETCH"}) {
		t.Errorf("commands of the second search = %q, want the selection reused and the search run again", cmds)
	}
	// Nothing changed since: one UID SEARCH.
	if _, err := c.Search(ctx, "Box", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil {
		t.Fatalf("Search() = %v", err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID SEARCH", "UID FETCH"}) {
		t.Errorf("commands of a search of an unchanged folder = %q, want one UID SEARCH", cmds)
	}

	if err := ts.user.Delete("Box"); err != nil {
		t.Fatal(err)
	}
	ts.addFolder(t, "Box", "")
	ts.deliver(t, "Box", rawMessage(testMsg{from: "x@example.test", subject: "recreated"}), time.Now())
	page := imap.PageRequest{Limit: 10, UIDValidity: first.UIDValidity}
	var got error
	for range 2 { // the first call may meet the server's BYE
		if _, got = c.Search(ctx, "Box", imap.SearchCriteria{}, page); !errors.Is(got, imap.ErrConnection) {
			break
		}
	}
	if !errors.Is(got, imap.ErrUIDValidityChanged) {
		t.Errorf("Search() after the folder was recreated = %v, want ErrUIDValidityChanged", got)
	}
}

func TestSearchFolders(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedFolders(t, ts)
	ts.addFolder(t, "Leer", "")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	if err := c.Noop(ctx); err != nil { // log in before counting
		t.Fatalf("Noop() = %v", err)
	}
	for folder, want := range map[string]int{"Entwürfe": 1, "日本語 フォルダ": 1, "Projects/Q1 2024": 0, "INBOX": 3, "Leer": 0} {
		ts.commands()
		res, err := c.Search(ctx, folder, imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
		if err != nil || res.Total != want || len(res.Messages) != want || res.Folder != folder {
			t.Errorf("Search(%q) = %+v, %v; want %d messages", folder, res, err, want)
		}
		if cmds := ts.commands(); want == 0 && !slices.Equal(cmds, []string{"EXAMINE"}) {
			t.Errorf("Search(%q) of an empty folder sent %q, want EXAMINE only", folder, cmds)
		}
	}
	_, err := c.Search(ctx, "Nope", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("Search(missing folder) = %v, want ErrFolderNotFound", err)
	}
	if _, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil {
		t.Errorf("Search() after a missing folder = %v, want nil", err)
	}
	if st := c.Stats(); st.Dials != 1 || st.Discards != 0 {
		t.Errorf("Stats() = %+v, want one connection throughout", st)
	}
}

func TestSearchErrors(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	tests := []struct {
		name   string
		inject error
		crit   imap.SearchCriteria
		page   imap.PageRequest
		want   error
	}{
		{"BADCHARSET", &goimap.Error{Type: goimap.StatusResponseTypeNo, Code: goimap.ResponseCodeBadCharset, Text: "no UTF-8"},
			imap.SearchCriteria{Subject: "Grüße"}, imap.PageRequest{Limit: 5}, imap.ErrSearchCharset},
		{"refused search", &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: "search backend down"},
			imap.SearchCriteria{}, imap.PageRequest{Limit: 5}, imap.ErrProtocol},
		{"limit 0", nil, imap.SearchCriteria{}, imap.PageRequest{}, imap.ErrInvalid},
		{"limit too large", nil, imap.SearchCriteria{}, imap.PageRequest{Limit: imap.MaxPageSize + 1}, imap.ErrInvalid},
		{"NUL in a term", nil, imap.SearchCriteria{Body: "a\x00b"}, imap.PageRequest{Limit: 5}, imap.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.failNextSearch(tt.inject)
			res, err := c.Search(ctx, "INBOX", tt.crit, tt.page)
			if !errors.Is(err, tt.want) || res != nil {
				t.Errorf("Search() = %+v, %v; want nil, %v", res, err, tt.want)
			}
		})
	}
	if _, err := c.Search(ctx, "", imap.SearchCriteria{}, imap.PageRequest{Limit: 5}); !errors.Is(err, imap.ErrInvalid) {
		t.Errorf("Search(\"\") = %v, want ErrInvalid", err)
	}
}

func TestSearchRecipient(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	for _, h := range []string{"To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To", "Reply-To"} {
		raw := fmt.Sprintf("From: app@example.test\r\nTo: list@example.test\r\n%s: alice+%s@example.test\r\n"+
			"Subject: via %s\r\n\r\nHello.\r\n", h, strings.ToLower(h), h)
		if h == "To" {
			raw = "From: app@example.test\r\nTo: alice+to@example.test\r\nSubject: via To\r\n\r\nHello.\r\n"
		}
		ts.deliver(t, "INBOX", raw, time.Now())
	}
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	tests := []struct {
		recipient string
		want      []uint32
	}{
		{"alice+to@", []uint32{1}},
		{"alice+cc@", []uint32{2}},
		{"alice+delivered-to@", []uint32{3}},
		{"alice+x-original-to@", []uint32{4}},
		{"alice+envelope-to@", []uint32{5}},
		{"alice+reply-to@", []uint32{}}, // not a recipient header
		{"alice+", []uint32{5, 4, 3, 2, 1}},
		{"list@", []uint32{6, 5, 4, 3, 2}},
	}
	for _, tt := range tests {
		res, err := c.Search(context.Background(), "INBOX", imap.SearchCriteria{Recipient: tt.recipient}, imap.PageRequest{Limit: 10})
		if err != nil {
			t.Fatalf("Search(recipient %q) = %v", tt.recipient, err)
		}
		if got := uidsOf(res); !slices.Equal(got, tt.want) {
			t.Errorf("Search(recipient %q) = %v, want %v", tt.recipient, got, tt.want)
		}
	}
}

// TestSearchAfterOwnExpunge: after a move by COPY + UID EXPUNGE on the same
// connection (imapclient hands those EXPUNGEs to the command, not to the
// unsolicited handler), new mail is still seen as a change: the search that
// met its EXISTS runs again. A count kept from the SELECT drifted by the
// expunged message and took the new EXISTS for no change.
func TestSearchAfterOwnExpunge(t *testing.T) {
	ts := newTestServer(t, modePlain, capsUIDPlus) // no MOVE: COPY, STORE, UID EXPUNGE
	ts.addFolder(t, "Other", "")
	seedSearch(t, ts, "INBOX")
	opts := clientOptions(t, ts.Port, modePlain)
	opts.PoolSize = 1
	c := newClient(t, opts)
	ctx := context.Background()
	res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Move(ctx, "INBOX", res.Messages[0].UID, "Other"); err != nil {
		t.Fatalf("Move() = %v", err)
	}
	uid := ts.deliver(t, "INBOX", rawMessage(testMsg{from: "new@example.test", subject: "after the move"}), time.Now())
	ts.commands()
	res, err = c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || res.Total != 6 || res.Messages[0].UID != uid {
		t.Fatalf("Search() after the move and new mail = %+v, %v; want 6 messages, UID %d first", res, err, uid)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID SEARCH", "UID SEARCH", "UID FETCH"}) {
		t.Errorf("commands = %q, want the search run again after the EXISTS of the new mail", cmds)
	}
	if st := c.Stats(); st.Dials != 1 {
		t.Errorf("Stats() = %+v, want one connection throughout", st)
	}
}

// TestSearchUIDsOnly: a page of UIDs only costs no UID FETCH, and names the
// same messages as the full page.
func TestSearchUIDsOnly(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	full, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	ts.commands()
	bare, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 4, UIDsOnly: true})
	if err != nil || !slices.Equal(uidsOf(bare), uidsOf(full)) || bare.Total != full.Total || bare.NextBeforeUID != full.NextBeforeUID {
		t.Fatalf("Search(UIDsOnly) = %+v, %v; want the UIDs of %v", bare, err, uidsOf(full))
	}
	if bare.Messages[0].Subject != "" {
		t.Errorf("Search(UIDsOnly) summary = %+v, want the UID alone", bare.Messages[0])
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID SEARCH"}) {
		t.Errorf("commands = %q, want the UID SEARCH alone", cmds)
	}
}
