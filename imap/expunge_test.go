package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// capsMoveOnly has MOVE but not UIDPLUS.
var capsMoveOnly = goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapMove: {}}

// deleteServer is moveServer (INBOX: UID 1 flagged, UID 2 \Deleted by
// another client and not expunged) with INBOX UIDs 3 and 4 more and a
// folder "Trash" holding one message (next UID 2).
func deleteServer(t *testing.T, caps goimap.CapSet) (*testServer, *imap.Client) {
	t.Helper()
	ts, c := moveServer(t, caps)
	ts.addFolder(t, "Trash", goimap.MailboxAttrTrash)
	msg := rawMessage(testMsg{from: "a@example.test", subject: "Grüße zum Löschen", body: "b"})
	ts.deliver(t, "INBOX", msg, day(2024, 1, 4))
	ts.deliver(t, "INBOX", msg, day(2024, 1, 5))
	ts.deliver(t, "Trash", msg, day(2024, 1, 6))
	ts.commands()
	return ts, c
}

func inboxUIDs(t *testing.T, c *imap.Client, folder string) []uint32 {
	t.Helper()
	res, err := c.Search(context.Background(), folder, imap.SearchCriteria{}, imap.PageRequest{Limit: 50})
	if err != nil {
		t.Fatalf("Search(%q) = %v", folder, err)
	}
	return uidsOf(res)
}

func noPlainExpunge(t *testing.T, cmds []string) {
	t.Helper()
	if slices.Contains(cmds, "EXPUNGE") || slices.Contains(cmds, "CLOSE") {
		t.Errorf("commands = %q: a folder-wide EXPUNGE (or CLOSE) was sent", cmds)
	}
}

func TestDeleteToTrash(t *testing.T) {
	tests := []struct {
		name    string
		caps    goimap.CapSet
		sent    string
		newUIDs map[uint32]uint32
	}{
		{"MOVE", capsFull, "UID MOVE", map[uint32]uint32{1: 2, 3: 3}},
		{"UIDPLUS without MOVE", capsUIDPlus, "UID COPY", map[uint32]uint32{1: 2, 3: 3}},
		{"MOVE without UIDPLUS", capsMoveOnly, "UID MOVE", nil}, // imapmemserver sends COPYUID anyway
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, c := deleteServer(t, tt.caps)
			d, err := c.Delete(context.Background(), imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{3, 1, 99, 1}, Trash: "Trash"})
			if err != nil {
				t.Fatalf("Delete() = %v", err)
			}
			if !slices.Equal(d.Deleted, []uint32{1, 3}) || !slices.Equal(d.Missing, []uint32{99}) {
				t.Errorf("Delete() = deleted %v missing %v, want [1 3] and [99]", d.Deleted, d.Missing)
			}
			if tt.newUIDs != nil && (len(d.NewUIDs) != 2 || d.NewUIDs[1] != 2 || d.NewUIDs[3] != 3) {
				t.Errorf("NewUIDs = %v, want %v", d.NewUIDs, tt.newUIDs)
			}
			cmds := ts.commands()
			if !slices.Contains(cmds, tt.sent) {
				t.Errorf("commands = %q, want %s", cmds, tt.sent)
			}
			noPlainExpunge(t, cmds)
			if got := inboxUIDs(t, c, "INBOX"); !slices.Equal(got, []uint32{4, 2}) {
				t.Errorf("INBOX after Delete = %v, want [4 2] (UID 2 is another client's \\Deleted, kept)", got)
			}
			if got := inboxUIDs(t, c, "Trash"); !slices.Equal(got, []uint32{3, 2, 1}) {
				t.Errorf("Trash after Delete = %v, want [3 2 1]", got)
			}
		})
	}
}

// TestDeletePermanentOnlyNamed: UID EXPUNGE removes the named UIDs; UID 2,
// which another client flagged \Deleted, survives.
func TestDeletePermanentOnlyNamed(t *testing.T) {
	for _, caps := range []goimap.CapSet{capsFull, capsUIDPlus} {
		ts, c := deleteServer(t, caps)
		if _, err := c.Delete(context.Background(), imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{1, 4}, Permanent: true}); err != nil {
			t.Fatalf("Delete(permanent) = %v", err)
		}
		cmds := ts.commands()
		if !slices.Contains(cmds, "UID EXPUNGE") {
			t.Errorf("commands = %q, want UID EXPUNGE", cmds)
		}
		noPlainExpunge(t, cmds)
		if got := inboxUIDs(t, c, "INBOX"); !slices.Equal(got, []uint32{3, 2}) {
			t.Errorf("INBOX after permanent Delete = %v, want [3 2]", got)
		}
		if got := inboxUIDs(t, c, "Trash"); len(got) != 1 {
			t.Errorf("Trash after permanent Delete = %v, want its one message only", got)
		}
	}
}

func TestDeleteRefusals(t *testing.T) {
	ctx := context.Background()
	for _, caps := range []goimap.CapSet{capsMoveOnly, capsBasic} {
		ts, c := deleteServer(t, caps)
		if _, err := c.Delete(ctx, imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{1}, Permanent: true}); !errors.Is(err, imap.ErrUnsupported) {
			t.Errorf("Delete(permanent) without UIDPLUS = %v, want ErrUnsupported", err)
		}
		noPlainExpunge(t, ts.commands())
	}
	ts, c := deleteServer(t, capsBasic)
	if _, err := c.Delete(ctx, imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{1}, Trash: "Trash"}); !errors.Is(err, imap.ErrUnsupported) {
		t.Errorf("Delete() with neither MOVE nor UIDPLUS = %v, want ErrUnsupported", err)
	}
	noPlainExpunge(t, ts.commands())
	_, c = deleteServer(t, capsFull)
	var m *imap.MissingUIDsError
	if _, err := c.Delete(ctx, imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{98, 99}, Trash: "Trash"}); !errors.As(err, &m) || !slices.Equal(m.UIDs, []uint32{98, 99}) {
		t.Errorf("Delete(missing) = %v, want a MissingUIDsError naming [98 99]", err)
	}
	for _, req := range []imap.DeleteRequest{
		{Folder: "INBOX", Trash: "Trash"},
		{Folder: "INBOX", UIDs: []uint32{0}, Trash: "Trash"},
		{Folder: "Trash", UIDs: []uint32{1}, Trash: "Trash"},
		{Folder: "INBOX", UIDs: []uint32{1}},
	} {
		if _, err := c.Delete(ctx, req); !errors.Is(err, imap.ErrInvalid) {
			t.Errorf("Delete(%+v) = %v, want ErrInvalid", req, err)
		}
	}
	if got := inboxUIDs(t, c, "INBOX"); !slices.Equal(got, []uint32{4, 3, 2, 1}) {
		t.Errorf("INBOX after refused Deletes = %v, want all four", got)
	}
}

func TestDeleteDryRun(t *testing.T) {
	ts, c := deleteServer(t, capsFull)
	d, err := c.Delete(context.Background(), imap.DeleteRequest{Folder: "INBOX", UIDs: []uint32{3, 4, 50}, Trash: "Trash", DryRun: true})
	if err != nil {
		t.Fatalf("Delete(dry run) = %v", err)
	}
	if !slices.Equal(d.Deleted, []uint32{3, 4}) || !slices.Equal(d.Missing, []uint32{50}) || d.Subjects[3] != "Grüße zum Löschen" {
		t.Errorf("dry run = %+v, want [3 4], missing [50], subjects decoded", d)
	}
	for _, cmd := range ts.commands() {
		if cmd == "UID MOVE" || cmd == "UID STORE" || cmd == "UID EXPUNGE" || cmd == "SELECT" {
			t.Errorf("dry run sent %s", cmd)
		}
	}
	if got := inboxUIDs(t, c, "INBOX"); len(got) != 4 {
		t.Errorf("INBOX after a dry run = %v, want all four", got)
	}
}

// TestFolderAdmin runs on the mailtest account (and Dovecot in the tier):
// non-ASCII names go out in modified UTF-7 and come back from LIST.
func TestFolderAdmin(t *testing.T) {
	ctx := context.Background()
	acct := mailtest.NewAccount(t)
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	parent, child, jp := acct.Folder("Entwürfe"), acct.Folder("Entwürfe")+"/Ärger", acct.Folder("日本語")
	for _, name := range []string{parent, child, jp} {
		if err := c.CreateFolder(ctx, name); err != nil {
			t.Fatalf("CreateFolder(%q) = %v", name, err)
		}
	}
	// A selection of the renamed folder must not survive the RENAME.
	if got := inboxUIDs(t, c, jp); len(got) != 0 {
		t.Fatalf("%s = %v", jp, got)
	}
	if err := c.RenameFolder(ctx, jp, jp+" 2"); err != nil {
		t.Fatalf("RenameFolder() = %v", err)
	}
	if _, err := c.Search(ctx, jp, imap.SearchCriteria{}, imap.PageRequest{Limit: 1}); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("Search of the old name = %v, want ErrFolderNotFound", err)
	}
	if err := c.DeleteFolder(ctx, child); err != nil {
		t.Fatalf("DeleteFolder() = %v", err)
	}
	if err := c.DeleteFolder(ctx, child); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("DeleteFolder(again) = %v, want ErrFolderNotFound", err)
	}
	if err := c.RenameFolder(ctx, acct.Folder("nope"), acct.Folder("x")); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("RenameFolder(missing) = %v, want ErrFolderNotFound", err)
	}
	folders, err := c.ListFolders(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range folders {
		names = append(names, f.Name)
	}
	if !slices.Contains(names, jp+" 2") || !slices.Contains(names, parent) || slices.Contains(names, jp) || slices.Contains(names, child) {
		t.Errorf("folders = %q", names)
	}
}
