package imap_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
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

func TestMoveMany(t *testing.T) {
	tests := []struct {
		name    string
		caps    goimap.CapSet
		sent    string // the command that moves
		notSent string
		inbox   []uint32 // left in INBOX
	}{
		{"MOVE", capsFull, "UID MOVE", "UID COPY", []uint32{2}},
		// UID 2 is \Deleted but was not asked for: UID EXPUNGE leaves it.
		{"UIDPLUS without MOVE", capsUIDPlus, "UID EXPUNGE", "UID MOVE", []uint32{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, c := moveServer(t, tt.caps)
			ctx := context.Background()
			msg := rawMessage(testMsg{from: "b@example.test", subject: "s", body: "b"})
			ts.deliver(t, "INBOX", msg, day(2024, 2, 1))
			ts.deliver(t, "INBOX", msg, day(2024, 2, 2))
			ts.commands()
			// 99 does not exist: skipped, not counted.
			n, err := c.MoveMany(ctx, "INBOX", []uint32{1, 3, 4, 99}, "Archive 2024")
			if err != nil || n != 3 {
				t.Fatalf("MoveMany() = %d, %v; want 3, nil", n, err)
			}
			cmds := ts.commands()
			count := func(name string) (k int) {
				for _, c := range cmds {
					if c == name {
						k++
					}
				}
				return k
			}
			if count(tt.sent) != 1 || count(tt.notSent) != 0 || count("EXPUNGE") != 0 {
				t.Errorf("commands = %q, want one %s for the set, no %s, no plain EXPUNGE", cmds, tt.sent, tt.notSent)
			}
			inbox, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
			if err != nil || !slices.Equal(uidsOf(inbox), tt.inbox) {
				t.Errorf("INBOX after MoveMany = %v, %v; want %v", uidsOf(inbox), err, tt.inbox)
			}
			archive, err := c.Search(ctx, "Archive 2024", imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
			if err != nil || len(archive.Messages) != 4 {
				t.Errorf("Archive after MoveMany = %v, %v; want 4 messages", uidsOf(archive), err)
			}
		})
	}
}

func TestMoveManyErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("neither MOVE nor UIDPLUS", func(t *testing.T) {
		ts, c := moveServer(t, capsBasic)
		ts.commands()
		if _, err := c.MoveMany(ctx, "INBOX", []uint32{1}, "Archive 2024"); !errors.Is(err, imap.ErrUnsupported) {
			t.Errorf("MoveMany() = %v, want ErrUnsupported", err)
		}
		if cmds := ts.commands(); slices.ContainsFunc(cmds, func(s string) bool { return s != "LOGIN" }) {
			t.Errorf("commands = %q, want none after LOGIN", cmds)
		}
	})
	_, c := moveServer(t, capsFull)
	many := make([]uint32, 1001)
	for i := range many {
		many[i] = uint32(i + 1)
	}
	tests := []struct {
		name     string
		from, to string
		uids     []uint32
		want     error
	}{
		{"missing target", "INBOX", "Nope", []uint32{1}, imap.ErrFolderNotFound},
		{"missing source", "Nope", "INBOX", []uint32{1}, imap.ErrFolderNotFound},
		{"same folder", "INBOX", "inbox", []uint32{1}, imap.ErrInvalid},
		{"no UID", "INBOX", "Archive 2024", nil, imap.ErrInvalid},
		{"UID 0", "INBOX", "Archive 2024", []uint32{1, 0}, imap.ErrInvalid},
		{"too many", "INBOX", "Archive 2024", many, imap.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.MoveMany(ctx, tt.from, tt.uids, tt.to); !errors.Is(err, tt.want) {
				t.Errorf("MoveMany(%q, %v, %q) = %v, want %v", tt.from, tt.uids, tt.to, err, tt.want)
			}
		})
	}
	if res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 10}); err != nil || res.Total != 2 {
		t.Errorf("INBOX after failed moves = %+v, %v; want both messages", res, err)
	}
}

// TestMoveManyKeptSelection: UIDs found by a search on another connection
// can be newer than the view of a connection that kept the folder selected
// (Dovecot does not sync a selection on its own). MoveMany must move them
// anyway, not skip them and count them as moved. In-process and, on the
// tier, on Dovecot, which is where a kept view goes stale.
func TestMoveManyKeptSelection(t *testing.T) {
	acct := mailtest.NewAccount(t)
	from, to := acct.Folder("many-from"), acct.Folder("many-to")
	acct.CreateFolder(t, from)
	acct.CreateFolder(t, to)
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	raw := func(i int) []byte {
		return fmt.Appendf(nil, "From: a@example.test\r\nSubject: many %d\r\nMessage-ID: <many-%d@example.test>\r\n\r\nBody\r\n", i, i)
	}
	old := acct.Append(t, from, raw(0))
	if n, err := c.MoveMany(ctx, from, []uint32{old}, to); err != nil || n != 1 {
		t.Fatalf("MoveMany(old) = %d, %v; want 1, nil", n, err) // the one connection now keeps from selected
	}
	var fresh []uint32
	for i := 1; i <= 3; i++ {
		fresh = append(fresh, acct.Append(t, from, raw(i)))
	}
	if n, err := c.MoveMany(ctx, from, fresh, to); err != nil || n != 3 {
		t.Fatalf("MoveMany(new mail) = %d, %v; want 3, nil", n, err)
	}
	left, err := c.Search(ctx, from, imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || len(left.Messages) != 0 {
		t.Errorf("source after MoveMany = %v, %v; want empty", uidsOf(left), err)
	}
	moved, err := c.Search(ctx, to, imap.SearchCriteria{}, imap.PageRequest{Limit: 10})
	if err != nil || len(moved.Messages) != 4 {
		t.Errorf("target after MoveMany = %v, %v; want 4 messages", uidsOf(moved), err)
	}
}
