package imap_test

import (
	"testing"
	"time"
)

// TestArrivedAfter: while someone waits, the watcher's NOOPs tell that the
// mail from UIDNEXT on had not arrived when each was sent: ArrivedAfter
// of a moment before a delivery names the new mail's UID, one after it the
// next UID; before any NOOP since the moment, nothing is known. A
// folder without a watcher knows nothing.
func TestArrivedAfter(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	opts := watchOptions(t, ts, modePlain)
	opts.ActivePoll = 10 * time.Millisecond
	opts.WatchLinger = time.Minute
	c := newClient(t, opts)
	if v, n := c.ArrivedAfter("INBOX", time.Now()); v != 0 || n != 0 {
		t.Errorf("ArrivedAfter() without a watcher = %d, %d; want 0, 0", v, n)
	}
	validity, next := uidNext(t, c, "INBOX")
	sub := subscribe(t, c, "INBOX", next-1)
	before := time.Now()
	eventually(t, "a NOOP sent after the moment", func() bool {
		_, n := c.ArrivedAfter("INBOX", before)
		return n != 0
	})
	if v, n := c.ArrivedAfter("INBOX", before); v != validity || n != next {
		t.Errorf("ArrivedAfter(before the mail) = %d, %d; want %d, %d", v, n, validity, next)
	}
	uid := ts.deliver(t, "INBOX", numbered(2), time.Now())
	if m := recv(t, sub); m.UID != uid {
		t.Fatalf("got UID %d, want %d", m.UID, uid)
	}
	after := time.Now()
	eventually(t, "a NOOP sent after the mail", func() bool {
		_, n := c.ArrivedAfter("INBOX", after)
		return n != 0
	})
	if v, n := c.ArrivedAfter("INBOX", after); v != validity || n != uid+1 {
		t.Errorf("ArrivedAfter(after the mail) = %d, %d; want %d, %d", v, n, validity, uid+1)
	}
	if v, n := c.ArrivedAfter("INBOX", before); v != validity || n != uid {
		t.Errorf("ArrivedAfter(before the mail), later = %d, %d; want %d, %d (the mail came after)", v, n, validity, uid)
	}
}
