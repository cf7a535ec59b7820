package imap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestCountMatches: the counts and newest messages agree with one Search
// per criteria; with ESEARCH the searches are pipelined (one round trip for
// all of them), without it they run one by one.
func TestCountMatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps goimap.CapSet
	}{{"ESEARCH", capsFull}, {"IMAP4rev1 only", capsBasic}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, modePlain, tc.caps)
			base := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
			for i := range 12 {
				to := fmt.Sprintf("box%d@example.test", i%3) // box0..box2; nobody writes to box3
				ts.deliver(t, "INBOX", rawMessage(testMsg{from: "svc@example.test", to: to, subject: fmt.Sprint("m", i)}), base.Add(time.Duration(i)*time.Hour))
			}
			c := newClient(t, clientOptions(t, ts.Port, modePlain))
			ctx := context.Background()
			crits := []imap.SearchCriteria{{Recipient: "box0@"}, {Recipient: "box1@"}, {Recipient: "box3@"}, {Recipient: "box2@"}}
			if err := c.Noop(ctx); err != nil {
				t.Fatal(err)
			}
			ts.commands()
			got, err := c.CountMatches(ctx, "INBOX", crits)
			if err != nil {
				t.Fatalf("CountMatches() = %v", err)
			}
			cmds := ts.commands()
			for i, crit := range crits {
				res, err := c.Search(ctx, "INBOX", crit, imap.PageRequest{Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				want := imap.MatchCount{Total: res.Total}
				if len(res.Messages) > 0 {
					want.NewestUID, want.NewestArrival = res.Messages[0].UID, res.Messages[0].InternalDate
				}
				if !got[i].NewestArrival.Equal(want.NewestArrival) || got[i].Total != want.Total || got[i].NewestUID != want.NewestUID {
					t.Errorf("CountMatches()[%d] (%s) = %+v, Search says %+v", i, crit.Recipient, got[i], want)
				}
			}
			if got[2].Total != 0 || got[2].OldestUID != 0 || got[3].Total != 4 || got[3].OldestUID != 3 || got[3].NewestUID != 12 ||
				!got[3].NewestArrival.Equal(base.Add(11*time.Hour)) {
				t.Errorf("CountMatches() = %+v; want box3 empty, box2 4 messages from UID 3 to 12, the newest at 19:00", got)
			}
			want := []string{"EXAMINE", "UID SEARCH", "UID SEARCH", "UID SEARCH", "UID SEARCH", "UID FETCH"}
			if !slices.Equal(cmds, want) {
				t.Errorf("commands = %q, want %q", cmds, want)
			}
			// A reused selection syncs first.
			ts.commands()
			if _, err := c.CountMatches(ctx, "INBOX", crits[:1]); err != nil {
				t.Fatal(err)
			}
			if cmds := ts.commands(); !slices.Equal(cmds, []string{"NOOP", "UID SEARCH", "UID FETCH"}) {
				t.Errorf("commands on a reused selection = %q, want NOOP first", cmds)
			}
		})
	}
}

func TestCountMatchesInvalid(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	if got, err := c.CountMatches(ctx, "INBOX", nil); err != nil || len(got) != 0 {
		t.Errorf("CountMatches(none) = %v, %v; want nothing, no error", got, err)
	}
	if st := c.Stats(); st.Dials != 0 {
		t.Errorf("CountMatches(none) dialled: %+v", st)
	}
	if _, err := c.CountMatches(ctx, "INBOX", make([]imap.SearchCriteria, imap.MaxPageSize+1)); !errors.Is(err, imap.ErrInvalid) {
		t.Errorf("CountMatches(%d) = %v, want ErrInvalid", imap.MaxPageSize+1, err)
	}
	if _, err := c.CountMatches(ctx, "Nope", []imap.SearchCriteria{{}}); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("CountMatches(missing folder) = %v, want ErrFolderNotFound", err)
	}
}

// TestCountMatchesPipelined: with ESEARCH every search is on the wire
// before the first answer comes back. A proxy holds the server's answers
// once the first UID SEARCH went up until all of them did (or 3 s): a
// client that waited for each answer would be held. Runs on Dovecot in its
// tier, whose answers (ESEARCH with TAG) it also checks.
func TestCountMatchesPipelined(t *testing.T) {
	acct := mailtest.NewAccount(t)
	folder := acct.Folder("count-pipe")
	acct.CreateFolder(t, folder)
	for i := range 6 {
		acct.Append(t, folder, fmt.Appendf(nil, "From: svc@example.test\r\nTo: pipe%d@example.test\r\nSubject: p%d\r\n\r\nbody\r\n", i%3, i))
	}
	const searches = 4
	var (
		mu       sync.Mutex
		sent     int    // UID SEARCH commands seen going up
		done     int    // of which counted in earlier chunks
		tail     []byte // the end of the last upstream chunk
		all      = make(chan struct{})
		heldOut  atomic.Bool // an answer waited the full 3 s
		counting atomic.Bool
	)
	p := faultproxy.Start(t, faultproxy.Options{Target: acct.Addr()})
	p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
		if !counting.Load() {
			return faultproxy.Forward
		}
		mu.Lock()
		if d == faultproxy.Upstream {
			// The marker may straddle two chunks: count over the tail of
			// the last one too.
			before := sent
			seen := append(tail, chunk...)
			sent = done + bytes.Count(seen, []byte(" UID SEARCH "))
			if i := bytes.LastIndex(seen, []byte(" UID SEARCH ")); i >= 0 {
				seen = seen[i+len(" UID SEARCH "):]
			}
			done, tail = sent, slices.Clone(seen[max(0, len(seen)-len(" UID SEARCH ")+1):])
			if before < searches && sent >= searches {
				close(all)
			}
		}
		waiting := sent > 0 && sent < searches
		mu.Unlock()
		if d == faultproxy.Downstream && waiting {
			select {
			case <-all:
			case <-time.After(3 * time.Second):
				heldOut.Store(true)
			}
		}
		return faultproxy.Forward
	})
	c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1, CommandTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.UIDValidity(ctx, folder); err != nil { // log in, outside the count
		t.Fatal(err)
	}
	counting.Store(true)
	crits := make([]imap.SearchCriteria, searches)
	for i := range crits {
		crits[i] = imap.SearchCriteria{Recipient: fmt.Sprintf("pipe%d@", i)}
	}
	got, err := c.CountMatches(ctx, folder, crits)
	if err != nil {
		t.Fatalf("CountMatches() = %v", err)
	}
	totals := []int{got[0].Total, got[1].Total, got[2].Total, got[3].Total}
	if !slices.Equal(totals, []int{2, 2, 2, 0}) || got[3].NewestUID != 0 || got[0].NewestArrival.IsZero() {
		t.Errorf("CountMatches() = %+v, want 2, 2, 2 and none", got)
	}
	if heldOut.Load() {
		t.Error("an answer was held 3 s: the searches did not go out pipelined")
	}
}
