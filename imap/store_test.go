package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// flagServer has three unread messages (UIDs 1 to 3) in INBOX.
func flagServer(t *testing.T) (*testServer, *imap.Client) {
	t.Helper()
	ts := newTestServer(t, modePlain, capsFull)
	for range 3 {
		ts.deliver(t, "INBOX", rawMessage(testMsg{from: "a@example.test", subject: "s", body: "b"}), day(2024, 1, 1))
	}
	return ts, newClient(t, clientOptions(t, ts.Port, modePlain))
}

func TestSetFlags(t *testing.T) {
	ts, c := flagServer(t)
	ctx := context.Background()
	tests := []struct {
		name string
		uids []uint32
		ch   imap.FlagChange
		want map[uint32][]string
	}{
		{"read", []uint32{1}, imap.FlagChange{Seen: ptr(true)}, map[uint32][]string{1: {`\Seen`}}},
		{"flag two", []uint32{2, 3}, imap.FlagChange{Flagged: ptr(true)}, map[uint32][]string{2: {`\Flagged`}, 3: {`\Flagged`}}},
		{"answered and unread at once", []uint32{1, 2}, imap.FlagChange{Answered: ptr(true), Seen: ptr(false)},
			map[uint32][]string{1: {`\Answered`}, 2: {`\Answered`, `\Flagged`}}},
		{"all three", []uint32{3}, imap.FlagChange{Seen: ptr(true), Flagged: ptr(false), Answered: ptr(true)},
			map[uint32][]string{3: {`\Answered`, `\Seen`}}},
		{"no-op on a flag already clear", []uint32{3}, imap.FlagChange{Flagged: ptr(false)}, map[uint32][]string{3: {`\Answered`, `\Seen`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.SetFlags(ctx, "INBOX", tt.uids, tt.ch)
			if err != nil {
				t.Fatalf("SetFlags() = %v, want nil", err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("SetFlags() = %v, want %v", got, tt.want)
			}
			for uid, want := range tt.want {
				g := slices.Clone(got[uid])
				slices.Sort(g)
				if !slices.Equal(g, want) {
					t.Errorf("SetFlags() flags of %d = %q, want %q", uid, g, want)
				}
			}
		})
	}
	// What the server holds agrees; the read reuses the read-write selection.
	ts.commands()
	res, err := c.Search(ctx, "INBOX", imap.SearchCriteria{Unread: ptr(true)}, imap.PageRequest{Limit: 10})
	if err != nil || !slices.Equal(uidsOf(res), []uint32{2, 1}) {
		t.Errorf("unread after SetFlags = %v, %v; want [2 1]", uidsOf(res), err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"NOOP", "UID SEARCH", "UID FETCH"}) { // a search by flag syncs first
		t.Errorf("commands of a search after SetFlags = %q, want no EXAMINE", cmds)
	}
}

func TestSetFlagsMissingUID(t *testing.T) {
	ts, c := flagServer(t)
	ctx := context.Background()
	_, err := c.SetFlags(ctx, "INBOX", []uint32{1, 7, 3, 9}, imap.FlagChange{Seen: ptr(true)})
	var missing *imap.MissingUIDsError
	if !errors.Is(err, imap.ErrMessageNotFound) || !errors.As(err, &missing) || !slices.Equal(missing.UIDs, []uint32{7, 9}) {
		t.Fatalf("SetFlags(1, 7, 3, 9) = %v, want MissingUIDsError{7 9}", err)
	}
	// Nothing changed, not even for the UIDs that exist.
	if cmds := ts.commands(); slices.Contains(cmds, "UID STORE") {
		t.Errorf("commands = %q, want no STORE when a UID is missing", cmds)
	}
	st, _ := ts.user.Status("INBOX", &goimapStatusUnseen)
	if *st.NumUnseen != 3 {
		t.Errorf("unseen = %d, want 3: nothing may change", *st.NumUnseen)
	}
	for _, tt := range []struct {
		name string
		uids []uint32
		ch   imap.FlagChange
	}{
		{"no flag", []uint32{1}, imap.FlagChange{}},
		{"no UID", nil, imap.FlagChange{Seen: ptr(true)}},
		{"UID 0", []uint32{0}, imap.FlagChange{Seen: ptr(true)}},
	} {
		if _, err := c.SetFlags(ctx, "INBOX", tt.uids, tt.ch); !errors.Is(err, imap.ErrInvalid) {
			t.Errorf("SetFlags(%s) = %v, want ErrInvalid", tt.name, err)
		}
	}
	if _, err := c.SetFlags(ctx, "Nope", []uint32{1}, imap.FlagChange{Seen: ptr(true)}); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("SetFlags(missing folder) = %v, want ErrFolderNotFound", err)
	}
	if st := c.Stats(); st.Dials != 1 || st.Discards != 0 {
		t.Errorf("Stats() = %+v, want the connection kept", st)
	}
}
