package imap_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestReusedSelectionSeesNewMail: mail delivered by another connection
// while the pooled connection keeps the folder selected is found by the next
// search and fetched by its UID. Dovecot runs a command on the session's
// view as of its last command: a search that did not run again after its
// answer reported the change (EXISTS) missed the new mail, and a fetch that
// did not sync and look again answered OK with nothing (MESSAGE_NOT_FOUND).
// Runs on Dovecot in its tier.
func TestReusedSelectionSeesNewMail(t *testing.T) {
	acct := mailtest.NewAccount(t)
	raw := func(i int) []byte {
		return []byte(fmt.Sprintf("From: a@example.test\r\nTo: b@example.test\r\nSubject: fresh %d\r\nMessage-ID: <fresh-%d@example.test>\r\n\r\nbody %d\r\n", i, i, i))
	}
	acct.Append(t, "INBOX", raw(1))
	total := 1
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 2; i <= 4; i++ {
		total++
		if _, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil {
			t.Fatalf("Search() = %v", err)
		}
		uid := acct.Append(t, "INBOX", raw(i)) // through another connection
		res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
		if err != nil || res.Total != total || res.Messages[0].UID != uid {
			t.Fatalf("Search() after delivery %d = %+v, %v; want %d messages, UID %d first", i, res, err, total, uid)
		}
		uid = acct.Append(t, "INBOX", raw(100+i))
		total++
		m, err := c.FetchMessage(ctx, "INBOX", uid, 0)
		if err != nil || m == nil {
			t.Fatalf("FetchMessage(new UID %d) = %v, want the message", uid, err)
		}
		uid = acct.Append(t, "INBOX", raw(200+i))
		total++
		ms, err := c.FetchMessages(ctx, "INBOX", []uint32{m.UID, uid}, 0)
		if err != nil || len(ms) != 2 || ms[1].UID != uid {
			t.Fatalf("FetchMessages(%d, new UID %d) = %d messages, %v; want both", m.UID, uid, len(ms), err)
		}
	}
}

// TestMissingMessageRetriesOnlyOnReusedSelection: a UID that is not there
// costs a NOOP and a second look only when the folder's selection was
// reused (its view may be stale); right after a fresh EXAMINE it is simply
// missing.
func TestMissingMessageRetriesOnlyOnReusedSelection(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	ts.addFolder(t, "Other", "")
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	if err := c.Noop(ctx); err != nil { // log in first
		t.Fatal(err)
	}
	ts.commands()
	if _, err := c.FetchMessage(ctx, "INBOX", 999, 0); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Fatalf("FetchMessage(999) = %v, want ErrMessageNotFound", err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"EXAMINE", "UID FETCH"}) {
		t.Errorf("commands after a fresh EXAMINE = %q, want one look", cmds)
	}
	if _, err := c.FetchMessage(ctx, "INBOX", 999, 0); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Fatalf("FetchMessage(999) again = %v, want ErrMessageNotFound", err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID FETCH", "NOOP", "UID FETCH"}) {
		t.Errorf("commands on the reused selection = %q, want a NOOP and a second look", cmds)
	}
	if _, err := c.FetchMessage(ctx, "Other", 1, 0); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Fatalf("FetchMessage(Other, 1) = %v, want ErrMessageNotFound", err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"EXAMINE", "UID FETCH"}) {
		t.Errorf("commands in another folder = %q, want one look (that selection is fresh)", cmds)
	}
}

// TestReusedSelectionSeesFlagChanges: a message marked read by another
// connection leaves a search for unread mail on the next call. Dovecot
// answers a UID SEARCH UNSEEN from the session's view, and reports the
// flag change only afterwards as an unsolicited FETCH. Runs on Dovecot in
// its tier.
func TestReusedSelectionSeesFlagChanges(t *testing.T) {
	acct := mailtest.NewAccount(t)
	var uids []uint32
	for i := range 3 {
		uids = append(uids, acct.Append(t, "INBOX", []byte(fmt.Sprintf(
			"From: a@example.test\r\nTo: b@example.test\r\nSubject: flags %d\r\nMessage-ID: <flags-%d@example.test>\r\n\r\nbody\r\n", i, i))))
	}
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unread := func() []uint32 {
		t.Helper()
		res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{Unread: ptr(true)}, imap.PageRequest{Limit: 100})
		if err != nil {
			t.Fatalf("Search(unread) = %v", err)
		}
		var got []uint32
		for _, m := range res.Messages {
			if slices.Contains(uids, m.UID) {
				got = append(got, m.UID)
			}
		}
		return got
	}
	if got := unread(); len(got) != 3 {
		t.Fatalf("unread = %v, want %v", got, uids)
	}
	other := acct.Client(t)
	if _, err := other.Select(acct.Folder("INBOX"), nil).Wait(); err != nil {
		t.Fatal(err)
	}
	for i, uid := range uids {
		store := &goimap.StoreFlags{Op: goimap.StoreFlagsAdd, Flags: []goimap.Flag{goimap.FlagSeen}, Silent: true}
		if err := other.Store(goimap.UIDSetNum(goimap.UID(uid)), store, nil).Close(); err != nil {
			t.Fatal(err)
		}
		if got := unread(); len(got) != 2-i || slices.Contains(got, uid) {
			t.Fatalf("unread after %d was marked read elsewhere = %v, want it gone", uid, got)
		}
	}
}

// TestUIDNextAfterKeptSelection: UIDNext on the pooled connection that keeps
// the folder selected names the mail delivered since through another
// connection. Dovecot answers a STATUS of the selected folder from the
// session's stale view: the UIDNEXT of before the delivery, which made a wait
// without since return mail older than the call, and an id fresh from
// another process "not a message id of this folder". Runs on Dovecot in its
// tier.
func TestUIDNextAfterKeptSelection(t *testing.T) {
	acct := mailtest.NewAccount(t)
	raw := func(i int) []byte {
		return []byte(fmt.Sprintf("From: a@example.test\r\nTo: b@example.test\r\nSubject: next %d\r\nMessage-ID: <next-%d@example.test>\r\n\r\nbody %d\r\n", i, i, i))
	}
	acct.Append(t, "INBOX", raw(0))
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 1; i <= 5; i++ {
		if _, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil {
			t.Fatalf("Search() = %v", err)
		}
		uid := acct.Append(t, "INBOX", raw(i)) // through another connection
		v, next, err := c.UIDNext(ctx, "INBOX")
		if err != nil || next != uid+1 {
			t.Fatalf("UIDNext() after delivery of UID %d = %d, %d, %v; want UIDNEXT %d", uid, v, next, err, uid+1)
		}
	}
}
