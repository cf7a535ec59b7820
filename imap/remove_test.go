package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
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
