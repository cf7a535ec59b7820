package imap_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
)

// proxiedClient is a Client of ts that reaches it through a faultproxy.
func proxiedClient(t *testing.T, ts *testServer, mut func(*imap.Options)) (*imap.Client, *faultproxy.Proxy) {
	t.Helper()
	p := faultproxy.Start(t, faultproxy.Options{Target: net.JoinHostPort("127.0.0.1", strconv.Itoa(ts.Port)), Seed: 7})
	opts := clientOptions(t, p.Port(), modePlain)
	opts.PollInterval = 20 * time.Millisecond
	opts.WatchLinger = 50 * time.Millisecond
	if mut != nil {
		mut(&opts)
	}
	return newClient(t, opts), p
}

// TestPoolCallerDeadlineStartsBackoff: a dial that one caller's own
// context deadline cut short is the caller giving up, not a server
// failure: it started the shared backoff, and the next caller, whose
// context was fine, failed at once with a timeout it never had against a
// server that answers.
func TestPoolCallerDeadlineStartsBackoff(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c, p := proxiedClient(t, ts, func(o *imap.Options) {
		o.DialTimeout, o.CommandTimeout = 10*time.Second, 10*time.Second
	})
	p.Stall() // the greeting does not come in time for an impatient caller
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	err := c.Noop(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Noop() with a 150 ms context on a stalled link = %v, want its own deadline", err)
	}
	p.Resume() // the server answers again
	dials := c.Stats().Dials
	if err := c.Noop(context.Background()); err != nil {
		t.Errorf("Noop() with no deadline on a healthy server = %v (dials %d -> %d); "+
			"want nil: the previous caller's deadline is not a server failure", err, dials, c.Stats().Dials)
	}
}

// TestSubscribeFailsAtOnceDuringBackoff: doc.go "While a connect is
// failing, Subscribe fails at once with its error, as the pool does"
// (watch.go Subscribe: "While the watcher reconnects after a failed
// connect, Subscribe fails at once with that failure, as the pool does").
// A second Subscribe, while the pool still failed at once, blocked until
// its own context ended and reported a timeout: the watcher's retryAt was
// not when it would try again (it also waits out the pool's backoff).
func TestSubscribeFailsAtOnceDuringBackoff(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c, p := proxiedClient(t, ts, func(o *imap.Options) {
		o.WatchLinger = time.Minute // the watcher stays while it waits to reconnect
		o.DialTimeout, o.CommandTimeout = 2*time.Second, 2*time.Second
	})
	p.Refuse() // the server is down: connection refused
	// Seven failed dials, each after the previous window: the pool now
	// fails at once for 2.5-5 s (backoff(7)).
	stop := time.Now().Add(30 * time.Second)
	for c.Stats().Dials < 7 && time.Now().Before(stop) {
		if err := c.Noop(ctxTimeout(t, 5*time.Second)); !errors.Is(err, imap.ErrConnection) {
			t.Fatalf("Noop() with the server down = %v, want ErrConnection", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := c.Stats().Dials; d < 7 {
		t.Fatalf("only %d dials in 30 s", d)
	}
	if _, err := c.Subscribe(ctxTimeout(t, 5*time.Second), "INBOX", 0); !errors.Is(err, imap.ErrConnection) {
		t.Fatalf("first Subscribe() with the server down = %v, want ErrConnection at once", err)
	}
	time.Sleep(150 * time.Millisecond) // past the watcher's own retryAt (backoff(1) <= 100 ms)
	// The pool's backoff (2.5-5 s after 7 failures) is still on: that is
	// what the old retryAt ignored. Not a timing assertion: 150 ms against
	// seconds; a machine that misses it cannot run this test meaningfully.
	perr := c.Noop(context.Background())
	if !errors.Is(perr, imap.ErrConnection) || !strings.Contains(perr.Error(), "not reconnecting") {
		t.Fatalf("precondition: the pool's backoff after 7 failed dials ended within 150 ms: %v", perr)
	}
	_, err := c.Subscribe(ctxTimeout(t, time.Second), "INBOX", 0)
	if !errors.Is(err, imap.ErrConnection) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Subscribe() while the pool fails at once (%v)\n  = %v\n  want the connect failure (ErrConnection) at once, as the pool does", perr, err)
	}
}

// TestWatcherCutDuringFetch: a connection cut as the watcher sends UID
// FETCH (in the middle of a sync) loses nothing and repeats nothing after
// the reconnection.
func TestWatcherCutDuringFetch(t *testing.T) {
	faultproxy.CheckLeaks(t)
	ts := newTestServer(t, modePlain, capsFull)
	c, p := proxiedClient(t, ts, nil)
	sub := subscribe(t, c, "INBOX", 0)
	var fired atomic.Bool
	p.SetHook(faultproxy.CutOnce(faultproxy.Upstream, " UID FETCH ", &fired))
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	ts.deliver(t, "INBOX", numbered(2), time.Now())
	if got := recvUIDs(t, sub, 2); !slices.Equal(got, []uint32{1, 2}) {
		t.Errorf("after a cut UID FETCH got %v, want [1 2]", got)
	}
	ts.deliver(t, "INBOX", numbered(3), time.Now())
	if m := recv(t, sub); m.UID != 3 {
		t.Errorf("then got UID %d, want 3", m.UID)
	}
	nothingPending(t, sub)
	if !fired.Load() || c.WatchStats().Reconnects < 1 {
		t.Errorf("fault not injected: fired %v, %+v", fired.Load(), c.WatchStats())
	}
	sub.Close()
	c.Close()
}
