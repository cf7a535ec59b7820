package imap_test

import (
	"context"
	"slices"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// seedFolders creates folders with spaces, non-ASCII names, a special use
// and a \Noselect parent, and delivers messages.
func seedFolders(t *testing.T, ts *testServer) {
	t.Helper()
	ts.addFolder(t, "Sent Items", goimap.MailboxAttrSent)
	ts.addFolder(t, "Entwürfe", goimap.MailboxAttrDrafts)
	ts.addFolder(t, "日本語 フォルダ", "")
	ts.addNoselect("Projects")
	ts.addFolder(t, "Projects/Q1 2024", "")
	ts.appendMessage(t, "INBOX", false)
	ts.appendMessage(t, "INBOX", true)
	ts.appendMessage(t, "INBOX", false)
	ts.appendMessage(t, "Entwürfe", true)
	ts.appendMessage(t, "日本語 フォルダ", false)
}

// byName indexes folders by name.
func byName(t *testing.T, folders []imap.Folder) map[string]imap.Folder {
	t.Helper()
	m := map[string]imap.Folder{}
	for _, f := range folders {
		if _, dup := m[f.Name]; dup {
			t.Errorf("folder %q listed twice", f.Name)
		}
		m[f.Name] = f
	}
	return m
}

func u32(p *uint32) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestListFolders(t *testing.T) {
	tests := []struct {
		name   string
		caps   goimap.CapSet
		counts bool
	}{
		{"basic caps without counts", capsBasic, false},
		{"basic caps with STATUS per folder", capsBasic, true},
		{"LIST-EXTENDED without counts", capsExtended, false},
		{"LIST-STATUS counts", capsExtended, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, modePlain, tt.caps)
			seedFolders(t, ts)
			c := newClient(t, clientOptions(t, ts.Port, modePlain))

			folders, err := c.ListFolders(context.Background(), tt.counts)
			if err != nil {
				t.Fatalf("ListFolders() = %v, want nil", err)
			}
			got := byName(t, folders)
			want := []string{"INBOX", "Sent Items", "Entwürfe", "日本語 フォルダ", "Projects", "Projects/Q1 2024"}
			if len(got) != len(want) {
				t.Errorf("ListFolders() returned %d folders, want %d: %v", len(got), len(want), folders)
			}
			for _, name := range want {
				f, ok := got[name]
				if !ok {
					t.Errorf("folder %q missing from %v", name, folders)
					continue
				}
				if f.Delimiter != "/" {
					t.Errorf("%q: Delimiter = %q, want /", name, f.Delimiter)
				}
			}
			checkSpecialUse(t, got)
			checkCounts(t, got, tt.counts, map[string][2]uint32{
				"INBOX": {3, 2}, "Sent Items": {0, 0}, "Entwürfe": {1, 0}, "日本語 フォルダ": {1, 1}, "Projects/Q1 2024": {0, 0},
			})
			if n := ts.noselectStatusCount(); n != 0 {
				t.Errorf("client sent STATUS for a \\Noselect folder %d times", n)
			}
			checkListOptions(t, ts, tt.caps, tt.counts)
		})
	}
}

func checkSpecialUse(t *testing.T, got map[string]imap.Folder) {
	t.Helper()
	for name, want := range map[string]string{"Sent Items": `\Sent`, "Entwürfe": `\Drafts`, "INBOX": ""} {
		if su := got[name].SpecialUse; su != want {
			t.Errorf("%q: SpecialUse = %q, want %q", name, su, want)
		}
	}
	if flags := got["Sent Items"].Flags; !slices.Contains(flags, `\Sent`) || !slices.Contains(flags, `\HasNoChildren`) {
		t.Errorf(`"Sent Items": Flags = %q, want \HasNoChildren and \Sent`, flags)
	}
	if flags := got["Projects"].Flags; !slices.Contains(flags, `\Noselect`) {
		t.Errorf(`"Projects": Flags = %q, want \Noselect`, flags)
	}
}

func checkCounts(t *testing.T, got map[string]imap.Folder, counts bool, want map[string][2]uint32) {
	t.Helper()
	for name, f := range got {
		w, selectable := want[name]
		if !counts || !selectable {
			if f.Messages != nil || f.Unseen != nil {
				t.Errorf("%q: counts = %v/%v, want none", name, u32(f.Messages), u32(f.Unseen))
			}
			continue
		}
		if u32(f.Messages) != any(w[0]) || u32(f.Unseen) != any(w[1]) {
			t.Errorf("%q: Messages/Unseen = %v/%v, want %d/%d", name, u32(f.Messages), u32(f.Unseen), w[0], w[1])
		}
	}
}

// checkListOptions: RETURN options only when the server announced them.
func checkListOptions(t *testing.T, ts *testServer, caps goimap.CapSet, counts bool) {
	t.Helper()
	opts := ts.listOptions()
	if len(opts) != 1 {
		t.Fatalf("server received %d LIST commands, want 1", len(opts))
	}
	o := opts[0]
	if !caps.Has(goimap.CapListExtended) && (o.ReturnSpecialUse || o.ReturnStatus != nil) {
		t.Errorf("LIST options = %+v sent to a server without LIST-EXTENDED", o)
	}
	if wantStatus := counts && caps.Has(goimap.CapListStatus); (o.ReturnStatus != nil) != wantStatus {
		t.Errorf("LIST RETURN STATUS sent = %v, want %v", o.ReturnStatus != nil, wantStatus)
	}
}

func TestListFoldersCountsFollowNewMail(t *testing.T) {
	for _, caps := range []goimap.CapSet{capsBasic, capsExtended} {
		ts := newTestServer(t, modePlain, caps)
		ts.addFolder(t, "Boîte réception", "")
		c := newClient(t, clientOptions(t, ts.Port, modePlain))
		for round := 1; round <= 3; round++ {
			ts.appendMessage(t, "Boîte réception", round == 2)
			folders, err := c.ListFolders(context.Background(), true)
			if err != nil {
				t.Fatalf("ListFolders() = %v, want nil", err)
			}
			f := byName(t, folders)["Boîte réception"]
			wantUnseen := uint32(round)
			if round >= 2 {
				wantUnseen--
			}
			if u32(f.Messages) != any(uint32(round)) || u32(f.Unseen) != any(wantUnseen) {
				t.Errorf("round %d: Messages/Unseen = %v/%v, want %d/%d", round, u32(f.Messages), u32(f.Unseen), round, wantUnseen)
			}
		}
		if st := c.Stats(); st.Dials != 1 {
			t.Errorf("Stats().Dials = %d after 3 sequential calls, want 1 (reuse)", st.Dials)
		}
	}
}

func TestNoopReusesConnection(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	for i := range 3 {
		if err := c.Noop(context.Background()); err != nil {
			t.Fatalf("Noop() #%d = %v, want nil", i, err)
		}
	}
	st := c.Stats()
	if st.Dials != 1 || st.Open != 1 || st.Idle != 1 || st.InUse != 0 {
		t.Errorf("Stats() = %+v, want 1 dial, 1 open idle connection", st)
	}
}

func TestIdleCheckReplacesDeadConnection(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	opts := clientOptions(t, ts.Port, modePlain)
	opts.IdleCheck = time.Nanosecond // every reuse sends a NOOP first
	c := newClient(t, opts)
	if err := c.Noop(context.Background()); err != nil {
		t.Fatalf("Noop() = %v, want nil", err)
	}
	ts.ln.closeAll()
	// The pooled connection is dead; the NOOP check must notice and dial
	// again, so this very call succeeds.
	if _, err := c.ListFolders(context.Background(), false); err != nil {
		t.Fatalf("ListFolders() after server hang-up = %v, want nil", err)
	}
	if st := c.Stats(); st.Dials != 2 || st.Discards != 1 || st.Open != 1 {
		t.Errorf("Stats() = %+v, want 2 dials, 1 discard, 1 open", st)
	}
}

func TestMaxIdleTimeClosesOldConnections(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	opts := clientOptions(t, ts.Port, modePlain)
	opts.MaxIdleTime = time.Nanosecond
	c := newClient(t, opts)
	for i := range 2 {
		if err := c.Noop(context.Background()); err != nil {
			t.Fatalf("Noop() #%d = %v, want nil", i, err)
		}
	}
	if st := c.Stats(); st.Dials != 2 || st.Open != 1 {
		t.Errorf("Stats() = %+v, want 2 dials (the idle one expired) and 1 open", st)
	}
}
