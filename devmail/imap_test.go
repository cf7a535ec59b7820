package devmail_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

var wantSpecialUse = map[string]imap.MailboxAttr{
	"Sent":    imap.MailboxAttrSent,
	"Drafts":  imap.MailboxAttrDrafts,
	"Trash":   imap.MailboxAttrTrash,
	"Junk":    imap.MailboxAttrJunk,
	"Archive": imap.MailboxAttrArchive,
}

func TestListSpecialUse(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c := dialIMAP(t, s, nil)
	tests := []struct {
		name      string
		opts      *imap.ListOptions
		wantInbox bool
	}{
		{"plain LIST", nil, true},
		{"LIST RETURN (SPECIAL-USE)", &imap.ListOptions{ReturnSpecialUse: true}, true},
		{"LIST (SPECIAL-USE)", &imap.ListOptions{SelectSpecialUse: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			boxes, err := c.List("", "*", tt.opts).Collect()
			if err != nil {
				t.Fatalf("List() = %v", err)
			}
			got := make(map[string][]imap.MailboxAttr)
			for _, b := range boxes {
				got[b.Mailbox] = b.Attrs
			}
			if _, ok := got["INBOX"]; ok != tt.wantInbox {
				t.Errorf("INBOX listed = %v, want %v (%v)", ok, tt.wantInbox, got)
			}
			for name, attr := range wantSpecialUse {
				if !slices.Contains(got[name], attr) {
					t.Errorf("%s attrs = %v, want %s", name, got[name], attr)
				}
			}
		})
	}
}

func TestCapabilities(t *testing.T) {
	s := startServer(t, devmail.Options{})
	caps := dialIMAP(t, s, nil).Caps()
	for _, want := range []imap.Cap{imap.CapIMAP4rev1, imap.CapMove, imap.CapUIDPlus, imap.CapSpecialUse,
		imap.CapIdle, imap.CapListStatus, imap.CapListExtended, imap.CapESearch} {
		if !caps.Has(want) {
			t.Errorf("caps lack %s: %v", want, caps)
		}
	}
	if caps.Has(imap.CapUnauthenticate) {
		t.Errorf("caps advertise UNAUTHENTICATE")
	}
}

func TestStatusAndListStatus(t *testing.T) {
	s := startServer(t, devmail.Options{})
	for i := range 3 {
		if err := s.Deliver(context.Background(), []byte(message(fmt.Sprint("m", i), "a@x.test", "b")), nil); err != nil {
			t.Fatalf("Deliver() = %v", err)
		}
	}
	c := dialIMAP(t, s, nil)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	seen := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
	if err := c.Store(imap.UIDSetNum(1), seen, nil).Close(); err != nil {
		t.Fatalf("Store() = %v", err)
	}
	if m, u := status(t, c, "INBOX"); m != 3 || u != 2 {
		t.Errorf("STATUS INBOX = %d/%d, want 3 messages/2 unseen", m, u)
	}
	boxes, err := c.List("", "*", &imap.ListOptions{
		ReturnStatus: &imap.StatusOptions{NumMessages: true, NumUnseen: true},
	}).Collect()
	if err != nil {
		t.Fatalf("List(STATUS) = %v", err)
	}
	want := map[string][2]uint32{"INBOX": {3, 2}, "Sent": {0, 0}, "Archive": {0, 0}}
	for _, b := range boxes {
		w, ok := want[b.Mailbox]
		if !ok {
			continue
		}
		delete(want, b.Mailbox)
		if b.Status == nil || b.Status.NumMessages == nil || b.Status.NumUnseen == nil {
			t.Errorf("LIST-STATUS %s: no counts", b.Mailbox)
			continue
		}
		if got := [2]uint32{*b.Status.NumMessages, *b.Status.NumUnseen}; got != w {
			t.Errorf("LIST-STATUS %s = %v, want %v", b.Mailbox, got, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("LIST-STATUS missed %v", want)
	}
}

func TestLoginRefused(t *testing.T) {
	s := startServer(t, devmail.Options{Username: "agent"})
	tests := []struct{ user, pass string }{
		{"agent", "wrong"},
		{"someone", testPassword},
		{"agent", ""},
	}
	for _, tt := range tests {
		t.Run(tt.user+"/"+tt.pass, func(t *testing.T) {
			c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
			if err != nil {
				t.Fatalf("DialInsecure() = %v", err)
			}
			defer c.Close()
			err = c.Login(tt.user, tt.pass).Wait()
			var imapErr *imap.Error
			if !errors.As(err, &imapErr) || imapErr.Code != imap.ResponseCodeAuthenticationFailed {
				t.Errorf("Login(%q, %q) = %v, want NO [AUTHENTICATIONFAILED]", tt.user, tt.pass, err)
			}
		})
	}
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		t.Fatalf("DialInsecure() = %v", err)
	}
	defer c.Close()
	if err := c.Login("agent", testPassword).Wait(); err != nil {
		t.Errorf("Login(right) = %v, want nil", err)
	}
}

func TestAppendAndMove(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c := dialIMAP(t, s, nil)
	draft := message("draft", "bob@x.test", "unsent")
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	ac := c.Append("Drafts", int64(len(draft)), &imap.AppendOptions{Flags: []imap.Flag{imap.FlagDraft}, Time: date})
	if _, err := ac.Write([]byte(draft)); err != nil {
		t.Fatalf("Append Write() = %v", err)
	}
	if err := ac.Close(); err != nil {
		t.Fatalf("Append Close() = %v", err)
	}
	ad, err := ac.Wait()
	if err != nil || ad.UID == 0 {
		t.Fatalf("Append() = %+v, %v; want an APPENDUID", ad, err)
	}
	drafts := fetchAll(t, c, "Drafts")
	if len(drafts) != 1 || string(drafts[0].Raw) != draft || !drafts[0].Date.Equal(date) ||
		!slices.Contains(drafts[0].Flags, imap.FlagDraft) {
		t.Fatalf("Drafts = %+v, want the appended draft with \\Draft and its date", drafts)
	}

	if err := s.Deliver(context.Background(), []byte(message("to archive", "a@x.test", "b")), nil); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	inbox := fetchAll(t, c, "INBOX")
	md, err := c.Move(imap.UIDSetNum(inbox[0].UID), "Archive").Wait()
	if err != nil {
		t.Fatalf("Move() = %v", err)
	}
	if uids, ok := md.DestUIDs.(imap.UIDSet); !ok || len(uids) == 0 {
		t.Errorf("Move() gave no COPYUID")
	}
	if m, _ := status(t, c, "INBOX"); m != 0 {
		t.Errorf("INBOX holds %d after MOVE, want 0", m)
	}
	if archived := fetchAll(t, c, "Archive"); len(archived) != 1 || string(archived[0].Raw) != string(inbox[0].Raw) {
		t.Errorf("Archive = %d messages, want the moved one", len(archived))
	}
}

func TestFolderRules(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c := dialIMAP(t, s, nil)
	if err := c.Create("Projects/2024", &imap.CreateOptions{SpecialUse: []imap.MailboxAttr{imap.MailboxAttrFlagged}}).Wait(); err != nil {
		t.Fatalf("Create() = %v", err)
	}
	if err := c.Create("Bad", &imap.CreateOptions{SpecialUse: []imap.MailboxAttr{"\\Nonsense"}}).Wait(); err == nil {
		t.Errorf("Create(USE \\Nonsense) = nil, want NO [USEATTR]")
	}
	if err := c.Rename("Nowhere", "Work", nil).Wait(); err == nil {
		t.Errorf("Rename(missing) = nil, want an error")
	}
	if err := c.Create("Projects", nil).Wait(); err == nil {
		t.Errorf("Create(Projects) = nil, want ALREADYEXISTS (made as the parent of Projects/2024)")
	}
	if err := c.Rename("Projects", "Work", nil).Wait(); err != nil {
		t.Fatalf("Rename() = %v", err)
	}
	boxes, err := c.List("", "Work*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	var names []string
	for _, b := range boxes {
		names = append(names, b.Mailbox+fmt.Sprint(b.Attrs))
	}
	if got := strings.Join(names, " "); got != `Work[\HasChildren] Work/2024[\HasNoChildren \Flagged]` {
		t.Errorf("LIST Work* = %s", got)
	}
	for _, err := range []error{c.Delete("INBOX").Wait(), c.Rename("INBOX", "Old", nil).Wait()} {
		if err == nil {
			t.Errorf("DELETE/RENAME INBOX = nil, want NO")
		}
	}
	if m, _ := status(t, c, "INBOX"); m != 0 {
		t.Errorf("INBOX gone after refused DELETE/RENAME?")
	}
}

func TestIdleSeesDelivery(t *testing.T) {
	s := startServer(t, devmail.Options{})
	exists := make(chan uint32, 16)
	c := dialIMAP(t, s, &imapclient.Options{UnilateralDataHandler: &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				select {
				case exists <- *d.NumMessages:
				default:
				}
			}
		},
	}})
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	idle, err := c.Idle()
	if err != nil {
		t.Fatalf("Idle() = %v", err)
	}
	if err := sendSMTP(t, s, "a@x.test", []string{"b@x.test"}, message("idle", "b@x.test", "x")); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
	select {
	case n := <-exists:
		if n != 1 {
			t.Errorf("EXISTS %d, want 1", n)
		}
	case <-time.After(waitFor):
		t.Fatalf("no EXISTS within %v of the delivery", waitFor)
	}
	if err := idle.Close(); err != nil {
		t.Fatalf("Idle Close() = %v", err)
	}
	if err := idle.Wait(); err != nil {
		t.Errorf("Idle Wait() = %v", err)
	}
}

func TestIMAPConnections(t *testing.T) {
	s := startServer(t, devmail.Options{})
	var clients []*imapclient.Client
	for range 3 {
		clients = append(clients, dialIMAP(t, s, nil))
	}
	eventually(t, "3 connections counted", func() bool { return s.IMAPConnections() == 3 })
	for _, c := range clients[:2] {
		if err := c.Logout().Wait(); err != nil {
			t.Fatalf("Logout() = %v", err)
		}
		_ = c.Close()
	}
	eventually(t, "1 connection left", func() bool { return s.IMAPConnections() == 1 })
	if err := clients[2].Noop().Wait(); err != nil {
		t.Errorf("Noop() on the open connection = %v", err)
	}
}

func TestAppendLimit(t *testing.T) {
	s := startServer(t, devmail.Options{MaxMessageBytes: 1024})
	c := dialIMAP(t, s, nil)
	if !c.Caps().Has("APPENDLIMIT=1024") {
		t.Errorf("caps = %v, want APPENDLIMIT=1024", c.Caps())
	}
	big := message("big", "a@x.test", strings.Repeat("y", 2000))
	ac := c.Append("INBOX", int64(len(big)), nil)
	_, _ = ac.Write([]byte(big))
	_ = ac.Close()
	if _, err := ac.Wait(); err == nil {
		t.Errorf("Append(2 KB) with a 1 KB limit = nil, want NO [TOOBIG]")
	}
	// The connection does not survive a refused non-synchronizing literal
	// (LITERAL-): look again on a new one.
	if m, _ := status(t, dialIMAP(t, s, nil), "INBOX"); m != 0 {
		t.Errorf("INBOX holds %d after a refused APPEND, want 0", m)
	}
}

// TestOppositeMovesDoNotDeadlock: moves INBOX→Archive and Archive→INBOX at
// the same time from two sessions. imapmemserver locks the source folder,
// then the target: without the account's xfer lock the two hung for good.
func TestOppositeMovesDoNotDeadlock(t *testing.T) {
	s := startServer(t, devmail.Options{})
	seed := dialIMAP(t, s, nil)
	for i := range 40 {
		folder := "INBOX"
		if i%2 == 1 {
			folder = "Archive"
		}
		raw := message(fmt.Sprintf("m%d", i), "a@x.test", "b")
		ac := seed.Append(folder, int64(len(raw)), nil)
		if _, err := ac.Write([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		if err := ac.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := ac.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 2)
	for _, dir := range [][2]string{{"INBOX", "Archive"}, {"Archive", "INBOX"}} {
		c := dialIMAP(t, s, nil)
		go func() {
			for range 200 {
				if _, err := c.Select(dir[0], nil).Wait(); err != nil {
					done <- err
					return
				}
				found, err := c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
				if err != nil {
					done <- err
					return
				}
				uids := found.AllUIDs()
				if len(uids) == 0 {
					continue
				}
				if _, err := c.Move(imap.UIDSetNum(uids[0]), dir[1]).Wait(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("move: %v", err)
			}
		case <-time.After(60 * time.Second): // a hang detector, not a timing assertion
			t.Fatal("opposite moves hung: the sandbox deadlocked")
		}
	}
	c := dialIMAP(t, s, nil)
	a, _ := status(t, c, "INBOX")
	b, _ := status(t, c, "Archive")
	if a+b != 40 {
		t.Errorf("INBOX %d + Archive %d = %d messages, want 40", a, b, a+b)
	}
}
