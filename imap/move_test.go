package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// moveServer has INBOX with UIDs 1 (to move) and 2 (already \Deleted, not
// expunged), and "Archive 2024" with one message (so the next UID is 2).
func moveServer(t *testing.T, caps goimap.CapSet) (*testServer, *imap.Client) {
	t.Helper()
	ts := newTestServer(t, modePlain, caps)
	ts.addFolder(t, "Archive 2024", "")
	msg := rawMessage(testMsg{from: "a@example.test", subject: "s", body: "b"})
	ts.deliver(t, "INBOX", msg, day(2024, 1, 1), goimap.FlagFlagged)
	ts.deliver(t, "INBOX", msg, day(2024, 1, 2), goimap.FlagDeleted)
	ts.deliver(t, "Archive 2024", msg, day(2024, 1, 3))
	return ts, newClient(t, clientOptions(t, ts.Port, modePlain))
}

func TestMove(t *testing.T) {
	tests := []struct {
		name    string
		caps    goimap.CapSet
		sent    string // the command that moves
		notSent string
	}{
		{"MOVE", capsFull, "UID MOVE", "UID COPY"},
		{"UIDPLUS without MOVE", capsUIDPlus, "UID EXPUNGE", "UID MOVE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, c := moveServer(t, tt.caps)
			ctx := context.Background()
			newUID, err := c.Move(ctx, "INBOX", 1, "Archive 2024")
			if err != nil || newUID != 2 {
				t.Fatalf("Move() = %d, %v; want 2, nil", newUID, err)
			}
			cmds := ts.commands()
			if !slices.Contains(cmds, tt.sent) || slices.Contains(cmds, tt.notSent) || slices.Contains(cmds, "EXPUNGE") {
				t.Errorf("commands = %q, want %s and neither %s nor a plain EXPUNGE", cmds, tt.sent, tt.notSent)
			}
			inbox, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
			if err != nil || !slices.Equal(uidsOf(inbox), []uint32{2}) {
				t.Errorf("INBOX after Move = %v, %v; want only UID 2 (\\Deleted, not expunged)", uidsOf(inbox), err)
			}
			archive, err := c.Search(ctx, "Archive 2024", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
			if err != nil || !slices.Equal(uidsOf(archive), []uint32{2, 1}) || !archive.Messages[0].Flagged {
				t.Errorf("Archive after Move = %+v, %v; want UIDs [2 1], the moved one flagged", archive, err)
			}
		})
	}
}

func TestMoveErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("neither MOVE nor UIDPLUS", func(t *testing.T) {
		ts, c := moveServer(t, capsBasic)
		ts.commands()
		if _, err := c.Move(ctx, "INBOX", 1, "Archive 2024"); !errors.Is(err, imap.ErrUnsupported) {
			t.Errorf("Move() = %v, want ErrUnsupported", err)
		}
		if cmds := ts.commands(); slices.ContainsFunc(cmds, func(s string) bool { return s != "LOGIN" }) {
			t.Errorf("commands = %q, want none after LOGIN", cmds)
		}
	})
	_, c := moveServer(t, capsFull)
	tests := []struct {
		name     string
		from, to string
		uid      uint32
		want     error
	}{
		{"missing target", "INBOX", "Nope", 1, imap.ErrFolderNotFound},
		{"missing source", "Nope", "INBOX", 1, imap.ErrFolderNotFound},
		{"missing UID", "INBOX", "Archive 2024", 42, imap.ErrMessageNotFound},
		{"same folder", "INBOX", "inbox", 1, imap.ErrInvalid},
		{"UID 0", "INBOX", "Archive 2024", 0, imap.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Move(ctx, tt.from, tt.uid, tt.to); !errors.Is(err, tt.want) {
				t.Errorf("Move(%q, %d, %q) = %v, want %v", tt.from, tt.uid, tt.to, err, tt.want)
			}
		})
	}
	if res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil || res.Total != 2 {
		t.Errorf("INBOX after failed moves = %+v, %v; want both messages", res, err)
	}
}
