package imap_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// A Move that fails after its COPY went out may still have copied: the
// server ran the COPY after the repair looked (it held the command in its
// socket buffer), or the repair could not run at all before ctx ended.
// The caller, told that the move failed, finds the message in both folders
// and moves it again, the original or the copy. That Move must finish the
// first one (keep one copy) instead of making a second. The proxy hides
// MOVE (the COPY path) and holds the COPY back, or cuts its answer and
// takes the server away. In-process and, with EMAIL_MCP_TEST_DOVECOT=1, on
// Dovecot.
func TestFaultMoveAgainAfterLateCopy(t *testing.T) {
	tests := []struct {
		name string
		// late: the first Move's COPY runs after Move returned; else its
		// answer is lost and no repair can run.
		late bool
		// back: the second Move moves the copy back to the source; else the
		// original to the target again.
		back bool
	}{
		{"late COPY, the original moved again", true, false},
		{"late COPY, the copy moved back", true, true},
		{"no repair, the original moved again", false, false},
		{"no repair, the copy moved back", false, true},
	}
	faultproxy.CheckLeaks(t)
	acct := mailtest.NewAccount(t)
	check := acct.Client(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := acct.Folder(fmt.Sprintf("late-from-%d", i)), acct.Folder(fmt.Sprintf("late-to-%d", i))
			acct.CreateFolder(t, from)
			acct.CreateFolder(t, to)
			p := faultproxy.Start(t, faultproxy.Options{Target: acct.Addr(), RewriteDownstream: faultproxy.HideMove})
			c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
				Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: time.Second, CommandTimeout: time.Second})
			t.Cleanup(func() { _ = c.Close() })
			id := fmt.Sprintf("late-%d@example.test", i)
			uid := acct.Append(t, from, fmt.Appendf(nil, "From: a@example.test\r\nSubject: late %d\r\nMessage-ID: <%s>\r\n\r\nBody\r\n", i, id))

			firstMove(t, p, c, tt.late, from, uid, to)
			inFrom, inTo := waitBoth(t, check, from, to, id)
			if inFrom != 1 || inTo != 1 {
				t.Fatalf("after the failed Move: %d copies in the source, %d in the target; want 1, 1 (the test's premise)", inFrom, inTo)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			again := func() error { _, err := c.Move(ctx, from, uid, to); return err }
			want := to
			if tt.back {
				want = from
				copyUID := uidOf(t, check, to, id)
				again = func() error { _, err := c.Move(ctx, to, copyUID, from); return err }
			}
			err := again()
			// The pool waits out its dial backoff after the server went
			// away: fail at once, then try again, as a caller does.
			for tries := 0; errors.Is(err, imap.ErrConnection) && tries < 20; tries++ {
				time.Sleep(250 * time.Millisecond)
				err = again()
			}
			inFrom, inTo = countByID(t, check, from, id), countByID(t, check, to, id)
			if wantFrom, wantTo := boolInt(want == from), boolInt(want == to); err != nil || inFrom != wantFrom || inTo != wantTo {
				t.Errorf("Move() again = %v; %d copies in the source, %d in the target; want nil, %d, %d", err, inFrom, inTo, wantFrom, wantTo)
			}
		})
	}
}

// firstMove runs the Move that fails: its COPY held back by the proxy until
// Move returned (late), or its answer cut and the server taken away so
// that no repair can run (not late). It fails t unless Move fails.
func firstMove(t *testing.T, p *faultproxy.Proxy, c *imap.Client, late bool, from string, uid uint32, to string) {
	t.Helper()
	var fired atomic.Bool
	if late {
		p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
			if faultproxy.CutOnce(faultproxy.Upstream, " UID COPY ", &fired)(d, chunk) == faultproxy.Cut {
				return faultproxy.Hold
			}
			return faultproxy.Forward
		})
	} else {
		cut := faultproxy.CutOnce(faultproxy.Downstream, "[COPYUID ", &fired)
		p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
			v := cut(d, chunk)
			if v == faultproxy.Cut {
				p.Down()
			}
			return v
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := c.Move(ctx, from, uid, to)
	p.SetHook(nil)
	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("the hook never saw the COPY: the test cut nothing")
	}
	if !errors.Is(err, imap.ErrConnection) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first Move() = %v, want ErrConnection or a timeout", err)
	}
	if late && p.Release() != 1 {
		t.Fatal("Release() forwarded nothing: the COPY was not held")
	}
}

// waitBoth counts the copies of id in from and to until the target has
// one (a released COPY runs when the server gets to it), at most 200
// times 10 ms apart.
func waitBoth(t *testing.T, c *imapclient.Client, from, to, id string) (inFrom, inTo int) {
	t.Helper()
	for range 200 {
		if inTo = countByID(t, c, to, id); inTo > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return countByID(t, c, from, id), inTo
}

// uidOf is the UID of the one message of folder whose Message-ID is id.
func uidOf(t *testing.T, c *imapclient.Client, folder, id string) uint32 {
	t.Helper()
	uids := uidsByID(t, c, folder, id)
	if len(uids) != 1 {
		t.Fatalf("UID SEARCH for %s in %q = %v; want one UID", id, folder, uids)
	}
	return uint32(uids[0])
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
