package imap_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// A move without MOVE (UID COPY, then UID STORE \Deleted + UID EXPUNGE)
// whose connection breaks at each step: the message must end up in exactly
// one of the two folders, and Move must say which. The proxy hides MOVE
// from the capabilities and cuts the connection once, where the hook says.
// In-process and, with EMAIL_MCP_TEST_DOVECOT=1, on Dovecot.

func TestFaultMoveInterrupted(t *testing.T) {
	tests := []struct {
		name   string
		dir    faultproxy.Direction
		marker string
		moved  bool // Move reports success and the message is in the target only
	}{
		{"before the COPY reaches the server", faultproxy.Upstream, " UID COPY ", false},
		{"after the COPY, its answer lost", faultproxy.Downstream, "[COPYUID ", true},
		{"between COPY and EXPUNGE", faultproxy.Upstream, " UID EXPUNGE ", true},
		{"after the EXPUNGE, its answer lost", faultproxy.Downstream, " EXPUNGE\r\n", true},
	}
	faultproxy.CheckLeaks(t)
	acct := mailtest.NewAccount(t)
	check := acct.Client(t) // counts copies directly, not through the proxy
	from, to := acct.Folder("cut-from"), acct.Folder("cut-to")
	acct.CreateFolder(t, from)
	acct.CreateFolder(t, to)
	p := faultproxy.Start(t, faultproxy.Options{Target: acct.Addr(), RewriteDownstream: faultproxy.HideMove})
	// A Client per case: a pooled connection that kept the source folder
	// selected would not see the message the case appends until its next
	// command on Dovecot (a separate finding, not what this test is about).
	newClient := func(t *testing.T) *imap.Client {
		c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
			Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t)
			id := fmt.Sprintf("cut-%d@example.test", i)
			uid := acct.Append(t, from, fmt.Appendf(nil, "From: a@example.test\r\nSubject: cut %d\r\nMessage-ID: <%s>\r\n\r\nBody\r\n", i, id))
			var fired atomic.Bool
			p.SetHook(faultproxy.CutOnce(tt.dir, tt.marker, &fired))
			defer p.SetHook(nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			newUID, err := c.Move(ctx, from, uid, to)
			if !fired.Load() {
				t.Fatalf("the hook never saw %q: the test cut nothing", tt.marker)
			}
			inFrom, inTo := countByID(t, check, from, id), countByID(t, check, to, id)
			if tt.moved {
				if err != nil || newUID == 0 || inFrom != 0 || inTo != 1 {
					t.Errorf("Move() = %d, %v; copies in source %d, in target %d; want a new UID, nil, 0, 1", newUID, err, inFrom, inTo)
				}
				return
			}
			if !errors.Is(err, imap.ErrConnection) || inFrom != 1 || inTo != 0 {
				t.Errorf("Move() = %d, %v; copies in source %d, in target %d; want ErrConnection, 1, 0", newUID, err, inFrom, inTo)
			}
		})
	}
	// With the server gone for good after the cut, Move still answers in
	// time, with the connection's error.
	t.Run("no server to finish with", func(t *testing.T) {
		c := newClient(t)
		uid := acct.Append(t, from, []byte("From: a@example.test\r\nSubject: gone\r\nMessage-ID: <gone@example.test>\r\n\r\nBody\r\n"))
		var fired atomic.Bool
		cut := faultproxy.CutOnce(faultproxy.Downstream, "[COPYUID ", &fired)
		p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
			v := cut(d, chunk)
			if v == faultproxy.Cut {
				p.Down()
			}
			return v
		})
		defer func() { p.SetHook(nil); _ = p.Up() }()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { _, err := c.Move(ctx, from, uid, to); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, imap.ErrConnection) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Move() = %v, want ErrConnection or a timeout", err)
			}
		case <-time.After(2*time.Second + faultproxy.HangMargin):
			t.Fatal("Move() hung with the server down")
		}
	})
	ps := p.Stats()
	t.Logf("FAULTS: test=%s injected=%d (cuts=%d rejected=%d) calls=%d hung=0 lost=0", t.Name(), ps.Cuts+ps.Rejected, ps.Cuts, ps.Rejected, len(tests)+1)
}

// TestFaultMoveManyInterrupted: a batch move whose connection breaks loses
// nothing. Each message is afterwards in the source, the target or both;
// MoveMany again for what is left in the source empties it, and every
// message is then in the target. With MOVE and without (COPY + EXPUNGE).
// In-process and, with EMAIL_MCP_TEST_DOVECOT=1, on Dovecot.
func TestFaultMoveManyInterrupted(t *testing.T) {
	tests := []struct {
		name   string
		hide   bool // hide MOVE: the COPY path
		dir    faultproxy.Direction
		marker string
	}{
		{"MOVE sent, answer lost", false, faultproxy.Downstream, "[COPYUID "},
		{"COPY sent, answer lost", true, faultproxy.Downstream, "[COPYUID "},
		{"between COPY and EXPUNGE", true, faultproxy.Upstream, " UID EXPUNGE "},
	}
	faultproxy.CheckLeaks(t)
	acct := mailtest.NewAccount(t)
	check := acct.Client(t) // counts copies directly, not through the proxy
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := acct.Folder(fmt.Sprintf("many-cut-from-%d", i)), acct.Folder(fmt.Sprintf("many-cut-to-%d", i))
			acct.CreateFolder(t, from)
			acct.CreateFolder(t, to)
			opts := faultproxy.Options{Target: acct.Addr()}
			if tt.hide {
				opts.RewriteDownstream = faultproxy.HideMove
			}
			p := faultproxy.Start(t, opts)
			c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
				Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
			t.Cleanup(func() { _ = c.Close() })
			var uids []uint32
			var ids []string
			for j := range 5 {
				id := fmt.Sprintf("many-cut-%d-%d@example.test", i, j)
				ids = append(ids, id)
				uids = append(uids, acct.Append(t, from, fmt.Appendf(nil, "From: a@example.test\r\nSubject: cut %d\r\nMessage-ID: <%s>\r\n\r\nBody\r\n", j, id)))
			}
			var fired atomic.Bool
			p.SetHook(faultproxy.CutOnce(tt.dir, tt.marker, &fired))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := c.MoveMany(ctx, from, uids, to)
			p.SetHook(nil)
			if !fired.Load() {
				t.Fatalf("the hook never saw %q: the test cut nothing", tt.marker)
			}
			if !errors.Is(err, imap.ErrConnection) {
				t.Errorf("MoveMany() cut = %v, want ErrConnection", err)
			}
			var left []uint32
			for j, id := range ids {
				inFrom, inTo := countByID(t, check, from, id), countByID(t, check, to, id)
				if inFrom+inTo == 0 {
					t.Fatalf("message %s is in neither folder after the cut", id)
				}
				if inFrom > 0 {
					left = append(left, uids[j])
				}
			}
			if len(left) > 0 {
				if _, err := c.MoveMany(ctx, from, left, to); err != nil {
					t.Fatalf("MoveMany(what is left) = %v", err)
				}
			}
			for _, id := range ids {
				if inFrom, inTo := countByID(t, check, from, id), countByID(t, check, to, id); inFrom != 0 || inTo == 0 {
					t.Errorf("after the second MoveMany, %s: %d in the source, %d in the target; want 0, at least 1", id, inFrom, inTo)
				}
			}
			ps := p.Stats()
			t.Logf("FAULTS: test=%s injected=%d (cuts=%d rejected=%d) calls=2 hung=0 lost=0", t.Name(), ps.Cuts+ps.Rejected, ps.Cuts, ps.Rejected)
		})
	}
}
