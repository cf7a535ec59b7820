package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestRemoveMessage removes UID 1 of INBOX, where UID 2 is \Deleted but
// not expunged: UID 2 stays, no plain EXPUNGE is sent.
func TestRemoveMessage(t *testing.T) {
	ctx := context.Background()
	ts, c := moveServer(t, capsUIDPlus)
	ts.commands()
	if err := c.RemoveMessage(ctx, "INBOX", 1); err != nil {
		t.Fatalf("RemoveMessage() = %v, want nil", err)
	}
	if cmds := ts.commands(); !slices.Contains(cmds, "UID EXPUNGE") || slices.Contains(cmds, "EXPUNGE") {
		t.Errorf("commands = %q, want UID EXPUNGE and no plain EXPUNGE", cmds)
	}
	inbox, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || !slices.Equal(uidsOf(inbox), []uint32{2}) {
		t.Errorf("INBOX after RemoveMessage = %v, %v; want only UID 2", uidsOf(inbox), err)
	}
	if err := c.RemoveMessage(ctx, "INBOX", 1); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("RemoveMessage() of a removed UID = %v, want ErrMessageNotFound", err)
	}
	if err := c.RemoveMessage(ctx, "No such", 1); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("RemoveMessage() in a missing folder = %v, want ErrFolderNotFound", err)
	}
	_, basic := moveServer(t, capsBasic)
	if err := basic.RemoveMessage(ctx, "INBOX", 1); !errors.Is(err, imap.ErrUnsupported) {
		t.Errorf("RemoveMessage() without UIDPLUS = %v, want ErrUnsupported", err)
	}
}

// TestRemoveMessageKeptSelection: a message appended on another connection
// after this one selected the folder (Dovecot's kept view does not know it)
// is removed all the same, and a \Deleted neighbour stays. In-process and,
// on the tier, on Dovecot.
func TestRemoveMessageKeptSelection(t *testing.T) {
	acct := mailtest.NewAccount(t)
	folder := acct.Folder("remove-kept")
	acct.CreateFolder(t, folder)
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	raw := []byte("From: a@example.test\r\nSubject: r\r\n\r\nBody\r\n")
	first := acct.Append(t, folder, raw)
	marked := acct.Append(t, folder, raw, `\Deleted`)
	if err := c.RemoveMessage(ctx, folder, first); err != nil { // the one connection now keeps folder selected
		t.Fatalf("RemoveMessage(first) = %v", err)
	}
	late := acct.Append(t, folder, raw)
	if err := c.RemoveMessage(ctx, folder, late); err != nil {
		t.Fatalf("RemoveMessage(late) = %v, want nil", err)
	}
	left, err := c.Search(ctx, folder, imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || !slices.Equal(uidsOf(left), []uint32{marked}) {
		t.Errorf("folder after RemoveMessage = %v, %v; want only the \\Deleted UID %d", uidsOf(left), err, marked)
	}
}
