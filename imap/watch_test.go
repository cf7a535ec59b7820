package imap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
)

// guard bounds every wait for a delivery: a guard against hangs, not a
// timing assertion.
const guard = 10 * time.Second

// watchOptions are client options for ts with small watcher periods.
func watchOptions(t testing.TB, ts *testServer, mode serverMode) imap.Options {
	opts := clientOptions(t, ts.Port, mode)
	opts.PollInterval = 20 * time.Millisecond
	opts.WatchLinger = 50 * time.Millisecond
	return opts
}

// subscribe subscribes or fails the test; the subscription is closed at the
// end of the test.
func subscribe(t testing.TB, c *imap.Client, folder string, afterUID uint32) *imap.Subscription {
	t.Helper()
	sub, err := c.Subscribe(ctxTimeout(t, guard), folder, afterUID)
	if err != nil {
		t.Fatalf("Subscribe(%q, %d) = %v", folder, afterUID, err)
	}
	t.Cleanup(sub.Close)
	return sub
}

// uidNext pins "now" in folder.
func uidNext(t testing.TB, c *imap.Client, folder string) (validity, next uint32) {
	t.Helper()
	validity, next, err := c.UIDNext(context.Background(), folder)
	if err != nil {
		t.Fatalf("UIDNext(%q) = %v", folder, err)
	}
	return validity, next
}

// recv returns the next message of sub; it fails if C closes or nothing
// comes within guard.
func recv(t testing.TB, sub *imap.Subscription) imap.NewMail {
	t.Helper()
	m, err := tryRecv(sub)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tryRecv is recv for goroutines other than the test's: it returns the
// failure instead of ending the test.
func tryRecv(sub *imap.Subscription) (imap.NewMail, error) {
	select {
	case m, ok := <-sub.C:
		if !ok {
			return m, fmt.Errorf("C closed, Err() = %v; want a message", sub.Err())
		}
		return m, nil
	case <-time.After(guard):
		return imap.NewMail{}, fmt.Errorf("no message within %v", guard)
	}
}

// recvUIDs receives n messages and returns their UIDs.
func recvUIDs(t testing.TB, sub *imap.Subscription, n int) []uint32 {
	t.Helper()
	var uids []uint32
	for range n {
		uids = append(uids, recv(t, sub).UID)
	}
	return uids
}

// nothingPending fails if sub has a message ready now.
func nothingPending(t testing.TB, sub *imap.Subscription) {
	t.Helper()
	select {
	case m, ok := <-sub.C:
		t.Errorf("unexpected delivery: UID %d (open %v)", m.UID, ok)
	default:
	}
}

// drainClosed reads sub.C until it closes and returns the UIDs read.
func drainClosed(t testing.TB, sub *imap.Subscription) []uint32 {
	t.Helper()
	var uids []uint32
	deadline := time.After(guard)
	for {
		select {
		case m, ok := <-sub.C:
			if !ok {
				return uids
			}
			uids = append(uids, m.UID)
		case <-deadline:
			t.Fatalf("C still open after %v", guard)
		}
	}
}

// eventually polls cond every 10 ms for at most guard.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for range int(guard / (10 * time.Millisecond)) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("still not true after %v: %s", guard, what)
}

func numbered(i int) string {
	return rawMessage(testMsg{from: "app@example.test", to: "alice@example.test",
		subject: fmt.Sprintf("Message %d", i), body: fmt.Sprintf("Your code is %06d", i)})
}

func seq(from, to uint32) []uint32 {
	var l []uint32
	for u := from; u <= to; u++ {
		l = append(l, u)
	}
	return l
}

func TestSubscribeDeliversNewMail(t *testing.T) {
	for _, mode := range []serverMode{modePlain, modeStartTLS, modeTLS} {
		t.Run(mode.security().String(), func(t *testing.T) {
			ts := newTestServer(t, mode, capsFull)
			ts.deliver(t, "INBOX", numbered(1), time.Now())
			c := newClient(t, watchOptions(t, ts, mode))
			validity, next := uidNext(t, c, "INBOX")
			sub := subscribe(t, c, "INBOX", next-1)
			if sub.UIDValidity() != validity {
				t.Errorf("UIDValidity() = %d, UIDNext said %d", sub.UIDValidity(), validity)
			}
			raw := numbered(2)
			date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
			uid := ts.deliver(t, "INBOX", raw, date)
			m := recv(t, sub)
			want := imap.NewMail{Folder: "INBOX", UID: uid, UIDValidity: validity, Size: int64(len(raw)), Complete: true}
			if m.Folder != want.Folder || m.UID != want.UID || m.UIDValidity != want.UIDValidity ||
				m.Size != want.Size || !m.Complete || string(m.Raw) != raw || !m.InternalDate.Equal(date) {
				t.Errorf("got %+v, want %+v with the raw message and date %v", m, want, date)
			}
			nothingPending(t, sub)
			if st := c.WatchStats(); st.Watchers != 1 || st.Connections != 1 || st.Subscribers != 1 {
				t.Errorf("WatchStats() = %+v, want one watcher, connection and subscriber", st)
			}
		})
	}
}

func TestSubscribeCatchUp(t *testing.T) {
	for _, running := range []bool{false, true} {
		t.Run(fmt.Sprintf("watcher running %v", running), func(t *testing.T) {
			ts := newTestServer(t, modePlain, capsFull)
			c := newClient(t, watchOptions(t, ts, modePlain))
			var early *imap.Subscription
			if running {
				early = subscribe(t, c, "INBOX", 0)
			}
			for i := 1; i <= 5; i++ {
				ts.deliver(t, "INBOX", numbered(i), time.Now())
			}
			if running { // the watcher has seen them all
				if got := recvUIDs(t, early, 5); !slices.Equal(got, seq(1, 5)) {
					t.Fatalf("early subscriber got %v, want 1..5", got)
				}
			}
			// afterUID 0 is literal: every message, even when the watcher
			// has already passed them (a wait pinned before the first mail).
			all := subscribe(t, c, "INBOX", 0)
			if got := recvUIDs(t, all, 5); !slices.Equal(got, seq(1, 5)) {
				t.Errorf("Subscribe(0) got %v, want 1..5", got)
			}
			sub := subscribe(t, c, "INBOX", 2)
			if got := recvUIDs(t, sub, 3); !slices.Equal(got, seq(3, 5)) {
				t.Errorf("catch-up = %v, want [3 4 5]", got)
			}
			ts.deliver(t, "INBOX", numbered(6), time.Now())
			if m := recv(t, sub); m.UID != 6 {
				t.Errorf("after catch-up got UID %d, want 6", m.UID)
			}
			nothingPending(t, sub)
			if running {
				if m := recv(t, early); m.UID != 6 {
					t.Errorf("early subscriber got UID %d, want 6", m.UID)
				}
				nothingPending(t, early)
			}
		})
	}
}

func TestManySubscribersShareOneConnection(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	opts := watchOptions(t, ts, modePlain)
	opts.PoolSize = 2
	c := newClient(t, opts)
	_, next := uidNext(t, c, "INBOX")

	const n = 500
	subs := make([]*imap.Subscription, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sub, err := c.Subscribe(ctxTimeout(t, guard), "INBOX", next-1)
			if err != nil {
				t.Errorf("Subscribe() #%d = %v", i, err)
				return
			}
			subs[i] = sub
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if st := c.WatchStats(); st.Watchers != 1 || st.Connections > 1 || st.Subscribers != n {
		t.Errorf("WatchStats() = %+v, want 1 watcher, ≤1 connection, %d subscribers", st, n)
	}
	uid := ts.deliver(t, "INBOX", numbered(1), time.Now())
	for i, sub := range subs {
		wg.Go(func() {
			defer sub.Close()
			if m, err := tryRecv(sub); err != nil || m.UID != uid {
				t.Errorf("subscriber %d got UID %d, %v; want %d", i, m.UID, err, uid)
			}
		})
	}
	wg.Wait()
	total, _ := ts.ln.stats()
	if total > opts.PoolSize+1 {
		t.Errorf("server saw %d connections, want at most PoolSize+1 = %d", total, opts.PoolSize+1)
	}
	if st := c.WatchStats(); st.Subscribers != 0 || st.Fetches != 1 {
		t.Errorf("WatchStats() = %+v after all closed, want 0 subscribers and 1 fetch", st)
	}
}

func TestTwoFoldersTwoWatchers(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Other", "")
	c := newClient(t, watchOptions(t, ts, modePlain))
	inbox := subscribe(t, c, "inbox", 0) // INBOX in any case
	other := subscribe(t, c, "Other", 0)
	if st := c.WatchStats(); st.Watchers != 2 || st.Connections != 2 {
		t.Errorf("WatchStats() = %+v, want 2 watchers on 2 connections", st)
	}
	ts.deliver(t, "Other", numbered(1), time.Now())
	if m := recv(t, other); m.Folder != "Other" || m.UID != 1 {
		t.Errorf("Other got %s UID %d, want Other UID 1", m.Folder, m.UID)
	}
	ts.deliver(t, "INBOX", numbered(2), time.Now())
	if m := recv(t, inbox); m.Folder != "INBOX" || m.UID != 1 || !bytes.Contains(m.Raw, []byte("Message 2")) {
		t.Errorf("INBOX got %s UID %d, want INBOX UID 1 (Message 2)", m.Folder, m.UID)
	}
	nothingPending(t, inbox)
	nothingPending(t, other)
}

func TestWatcherCatchesUpAfterReconnect(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c := newClient(t, watchOptions(t, ts, modePlain))
	sub := subscribe(t, c, "INBOX", 0)
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	if m := recv(t, sub); m.UID != 1 {
		t.Fatalf("got UID %d, want 1", m.UID)
	}
	// The server hangs up and takes no connection for a while: the
	// message lands while the watcher is away.
	resume := ts.ln.pauseAccept(t)
	ts.ln.closeAll()
	eventually(t, "watcher connection closed", func() bool { return c.WatchStats().Connections == 0 })
	ts.deliver(t, "INBOX", numbered(2), time.Now())
	resume()
	if m := recv(t, sub); m.UID != 2 {
		t.Errorf("after reconnect got UID %d, want 2", m.UID)
	}
	ts.deliver(t, "INBOX", numbered(3), time.Now())
	if m := recv(t, sub); m.UID != 3 {
		t.Errorf("then got UID %d, want 3 (no repeat)", m.UID)
	}
	nothingPending(t, sub)
	if st := c.WatchStats(); st.Reconnects < 1 || st.Connections != 1 {
		t.Errorf("WatchStats() = %+v, want a reconnect and one connection", st)
	}
}

func TestWatcherDetectsDeadServer(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	opts := watchOptions(t, ts, modePlain)
	opts.WatchRefresh = 100 * time.Millisecond
	opts.CommandTimeout = 500 * time.Millisecond
	c := newClient(t, opts)
	sub := subscribe(t, c, "INBOX", 0)
	// The server's answers stop arriving: the EXISTS is lost, and so is
	// the OK to the DONE that ends the IDLE period.
	ts.ln.freezeAll()
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	if m := recv(t, sub); m.UID != 1 {
		t.Errorf("got UID %d, want 1", m.UID)
	}
	if st := c.WatchStats(); st.Reconnects < 1 {
		t.Errorf("WatchStats() = %+v, want a reconnect", st)
	}
}

func TestWatcherPollsWithoutIdle(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.ln.hideIdle.Store(true)
	c := newClient(t, watchOptions(t, ts, modePlain))
	sub := subscribe(t, c, "INBOX", 0)
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	if m := recv(t, sub); m.UID != 1 {
		t.Errorf("got UID %d, want 1", m.UID)
	}
	cmds := ts.commands()
	if slices.Contains(cmds, "IDLE") || !slices.Contains(cmds, "NOOP") {
		t.Errorf("commands = %q, want NOOP polling and no IDLE", cmds)
	}
}

// TestWatcherActivePoll: with ActivePoll a watcher that has subscribers
// checks with NOOP instead of IDLE, and IDLEs again once they are gone.
func TestWatcherActivePoll(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	opts := watchOptions(t, ts, modePlain)
	opts.ActivePoll = 10 * time.Millisecond
	opts.WatchLinger = time.Minute
	c := newClient(t, opts)
	sub := subscribe(t, c, "INBOX", 0)
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	if m := recv(t, sub); m.UID != 1 {
		t.Errorf("got UID %d, want 1", m.UID)
	}
	cmds := ts.commands()
	if slices.Contains(cmds, "IDLE") || !slices.Contains(cmds, "NOOP") {
		t.Errorf("commands with a subscriber = %q, want NOOP checks and no IDLE", cmds)
	}
	sub.Close()
	eventually(t, "an IDLE once the last subscriber left", func() bool {
		return slices.Contains(ts.commands(), "IDLE")
	})
	// A new subscriber ends that IDLE at once (no news needed) and polls.
	subscribe(t, c, "INBOX", 1) // closed by its cleanup
	eventually(t, "DONE and NOOP checks for the new subscriber", func() bool {
		return slices.Contains(ts.commands(), "NOOP")
	})
}

func TestCloseEndsWatchers(t *testing.T) {
	faultproxy.CheckLeaks(t) // by goroutine ID: nothing the client started outlives the test
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Other", "")
	c := imap.New(watchOptions(t, ts, modePlain))
	inbox, err := c.Subscribe(ctxTimeout(t, guard), "INBOX", 0)
	if err != nil {
		t.Fatalf("Subscribe(INBOX) = %v", err)
	}
	other, err := c.Subscribe(ctxTimeout(t, guard), "Other", 0)
	if err != nil {
		t.Fatalf("Subscribe(Other) = %v", err)
	}
	// 20 unread messages: 16 in C, the rest with the subscription's pump.
	for i := 1; i <= 20; i++ {
		ts.deliver(t, "Other", numbered(i), time.Now())
	}
	eventually(t, "C full", func() bool { return len(other.C) == cap(other.C) })
	if err := within(t, guard, c.Close); err != nil {
		t.Errorf("Close() = %v", err)
	}
	for name, sub := range map[string]*imap.Subscription{"INBOX": inbox, "Other": other} {
		got := drainClosed(t, sub)
		if !errors.Is(sub.Err(), imap.ErrClosed) {
			t.Errorf("%s: Err() = %v, want ErrClosed", name, sub.Err())
		}
		if !slices.Equal(got, seq(1, uint32(len(got)))) {
			t.Errorf("%s: buffered UIDs %v, want a prefix of 1..20", name, got)
		}
	}
	if st := c.WatchStats(); st.Watchers != 0 || st.Connections != 0 || st.Subscribers != 0 {
		t.Errorf("WatchStats() after Close = %+v, want nothing", st)
	}
	if _, err := c.Subscribe(context.Background(), "INBOX", 0); !errors.Is(err, imap.ErrClosed) {
		t.Errorf("Subscribe() after Close = %v, want ErrClosed", err)
	}
}

func TestUIDValidityChangeEndsSubscriptions(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Box", "")
	c := newClient(t, watchOptions(t, ts, modePlain))
	sub := subscribe(t, c, "Box", 0)
	old := sub.UIDValidity()
	ts.recreate(t, "Box")
	drainClosed(t, sub)
	if !errors.Is(sub.Err(), imap.ErrUIDValidityChanged) {
		t.Errorf("Err() = %v, want ErrUIDValidityChanged", sub.Err())
	}
	again := subscribe(t, c, "Box", 0)
	if again.UIDValidity() == old || again.UIDValidity() == 0 {
		t.Errorf("new subscription's UIDValidity() = %d, want a new one (was %d)", again.UIDValidity(), old)
	}
	ts.deliver(t, "Box", numbered(1), time.Now())
	if m := recv(t, again); m.UID != 1 || m.UIDValidity != again.UIDValidity() {
		t.Errorf("got UID %d in %d, want UID 1 in %d", m.UID, m.UIDValidity, again.UIDValidity())
	}
}

// TestRefreshFindsWhatIdleMissed: every WatchRefresh the watcher ends its
// IDLE and EXAMINEs the folder again, which finds what a server did not
// report during IDLE.
func TestRefreshFindsWhatIdleMissed(t *testing.T) {
	t.Run("IDLE that reports nothing", func(t *testing.T) {
		ts := newTestServer(t, modePlain, capsFull)
		ts.muteIdle.Store(true)
		opts := watchOptions(t, ts, modePlain)
		opts.WatchRefresh = 50 * time.Millisecond
		c := newClient(t, opts)
		sub := subscribe(t, c, "INBOX", 0)
		ts.deliver(t, "INBOX", numbered(1), time.Now())
		if m := recv(t, sub); m.UID != 1 {
			t.Errorf("got UID %d, want 1", m.UID)
		}
	})
	t.Run("folder recreated without BYE", func(t *testing.T) {
		ts := newTestServer(t, modePlain, capsFull)
		ts.quietDelete.Store(true)
		ts.addFolder(t, "Box", "")
		opts := watchOptions(t, ts, modePlain)
		opts.WatchRefresh = 50 * time.Millisecond
		c := newClient(t, opts)
		sub := subscribe(t, c, "Box", 0)
		ts.recreate(t, "Box")
		drainClosed(t, sub)
		if !errors.Is(sub.Err(), imap.ErrUIDValidityChanged) {
			t.Errorf("Err() = %v, want ErrUIDValidityChanged", sub.Err())
		}
		if st := c.WatchStats(); st.Reconnects != 0 {
			t.Errorf("WatchStats() = %+v, want the change found without reconnecting", st)
		}
	})
}

func TestSlowSubscriber(t *testing.T) {
	tests := []struct {
		name    string
		queue   int
		deliver int
		want    []uint32 // what the slow reader finds afterwards
		wantErr error
	}{
		{"overflow closes it", 4, 6, seq(1, 4), imap.ErrOverflow},
		{"queue keeps order", 100, 40, seq(1, 40), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, modePlain, capsFull)
			opts := watchOptions(t, ts, modePlain)
			opts.WatchQueue = tt.queue
			c := newClient(t, opts)
			fast := subscribe(t, c, "INBOX", 0)
			slow := subscribe(t, c, "INBOX", 0)
			for i := 1; i <= tt.deliver; i++ {
				ts.deliver(t, "INBOX", numbered(i), time.Now())
				if m := recv(t, fast); m.UID != uint32(i) { // the watcher never waits for slow
					t.Fatalf("fast subscriber got UID %d, want %d", m.UID, i)
				}
			}
			var got []uint32
			if tt.wantErr != nil {
				got = drainClosed(t, slow)
			} else {
				got = recvUIDs(t, slow, len(tt.want))
				nothingPending(t, slow)
			}
			if !slices.Equal(got, tt.want) || !errors.Is(slow.Err(), tt.wantErr) || (tt.wantErr == nil) != (slow.Err() == nil) {
				t.Errorf("slow subscriber got %v, Err() = %v; want %v, %v", got, slow.Err(), tt.want, tt.wantErr)
			}
		})
	}
}

func TestWatcherLingersThenStops(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c := newClient(t, watchOptions(t, ts, modePlain))
	sub := subscribe(t, c, "INBOX", 0)
	sub.Close()
	sub.Close() // twice is fine
	if sub.Err() != nil {
		t.Errorf("Err() after Close = %v, want nil", sub.Err())
	}
	if _, ok := <-sub.C; ok {
		t.Error("C still open after Close")
	}
	eventually(t, "watcher stopped", func() bool {
		st := c.WatchStats()
		return st.Watchers == 0 && st.Connections == 0
	})
	again := subscribe(t, c, "INBOX", 0)
	ts.deliver(t, "INBOX", numbered(1), time.Now())
	if m := recv(t, again); m.UID != 1 {
		t.Errorf("new watcher delivered UID %d, want 1", m.UID)
	}
	if total, _ := ts.ln.stats(); total != 2 {
		t.Errorf("server saw %d connections, want 2 (one watcher after the other)", total)
	}
}

func TestSubscribeErrors(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	closed := imap.New(watchOptions(t, ts, modePlain))
	closed.Close()
	wrong := watchOptions(t, ts, modePlain)
	wrong.Password = "wrong"
	tests := []struct {
		name   string
		c      *imap.Client
		folder string
		want   error
	}{
		{"missing folder", newClient(t, watchOptions(t, ts, modePlain)), "Nope", imap.ErrFolderNotFound},
		{"empty name", newClient(t, watchOptions(t, ts, modePlain)), "", imap.ErrInvalid},
		{"wrong password", newClient(t, wrong), "INBOX", imap.ErrAuthFailed},
		{"closed client", closed, "INBOX", imap.ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := tt.c.Subscribe(ctxTimeout(t, guard), tt.folder, 0)
			if !errors.Is(err, tt.want) || sub != nil {
				t.Errorf("Subscribe(%q) = %v, %v; want %v", tt.folder, sub, err, tt.want)
			}
			noPassword(t, err)
			eventually(t, "no watcher left", func() bool {
				st := tt.c.WatchStats()
				return st.Watchers == 0 && st.Subscribers == 0 && st.Connections == 0
			})
		})
	}
}

func TestSubscribeWaitHonoursContext(t *testing.T) {
	port := silentServer(t) // connects, never greets
	opts := clientOptions(t, port, modePlain)
	c := newClient(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := within(t, guard, func() error { _, err := c.Subscribe(ctx, "INBOX", 0); return err })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Subscribe() on a silent server = %v, want DeadlineExceeded", err)
	}
	if st := c.WatchStats(); st.Subscribers != 0 {
		t.Errorf("WatchStats() = %+v, want the subscriber gone", st)
	}
}

func TestUIDNext(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c := newClient(t, watchOptions(t, ts, modePlain))
	v1, next := uidNext(t, c, "INBOX")
	if next != 1 || v1 == 0 {
		t.Errorf("UIDNext(empty) = %d, %d; want a validity and 1", v1, next)
	}
	for i := range 3 {
		ts.deliver(t, "INBOX", numbered(i), time.Now())
	}
	if v, next := uidNext(t, c, "INBOX"); v != v1 || next != 4 {
		t.Errorf("UIDNext() = %d, %d; want %d, 4", v, next, v1)
	}
	if _, _, err := c.UIDNext(context.Background(), "Nope"); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("UIDNext(missing) = %v, want ErrFolderNotFound", err)
	}
}

func TestFetchMessages(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedMany(t, ts, "INBOX", 60)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	if err := c.Noop(ctx); err != nil {
		t.Fatalf("Noop() = %v", err)
	}
	ts.commands()
	uids := append(seq(1, 60), 5000) // one missing
	slices.Reverse(uids)
	msgs, err := c.FetchMessages(ctx, "INBOX", uids, 1<<20)
	if err != nil {
		t.Fatalf("FetchMessages() = %v", err)
	}
	var got []uint32
	for _, m := range msgs {
		got = append(got, m.UID)
		if !m.Complete || m.Structure == nil || int64(len(m.Raw)) != m.Size || m.UIDValidity == 0 || m.InternalDate.IsZero() {
			t.Errorf("UID %d: Complete %v, Structure %v, %d of %d bytes, validity %d", m.UID, m.Complete, m.Structure != nil, len(m.Raw), m.Size, m.UIDValidity)
		}
	}
	if !slices.Equal(got, seq(1, 60)) {
		t.Errorf("UIDs = %v, want 1..60 ascending without the missing one", got)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"EXAMINE", "UID FETCH"}) {
		t.Errorf("commands = %q, want one EXAMINE and one UID FETCH", cmds)
	}
	short, err := c.FetchMessages(ctx, "INBOX", []uint32{2, 1}, 10)
	if err != nil || len(short) != 2 || len(short[0].Raw) != 10 || short[0].Complete {
		t.Fatalf("FetchMessages(prefix 10) = %v; want 2 messages cut at 10 bytes", err)
	}
	if cmds := ts.commands(); !slices.Equal(cmds, []string{"UID FETCH"}) {
		t.Errorf("commands = %q, want the selection reused", cmds)
	}
}

func TestFetchMessagesInvalid(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	tests := []struct {
		name string
		uids []uint32
		want error
	}{
		{"UID 0", []uint32{1, 0}, imap.ErrInvalid},
		{"too many", seq(1, imap.MaxPageSize+1), imap.ErrInvalid},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := c.FetchMessages(context.Background(), "INBOX", tt.uids, 100)
			if !errors.Is(err, tt.want) || (tt.want == nil && (err != nil || len(msgs) != 0)) {
				t.Errorf("FetchMessages() = %d messages, %v; want %v", len(msgs), err, tt.want)
			}
		})
	}
	if total, _ := ts.ln.stats(); total != 0 {
		t.Errorf("server saw %d connections, want none", total)
	}
}

// BenchmarkWatchLatency measures an in-process delivery's way to its
// subscribers: APPEND on the server, EXISTS during IDLE, DONE, UID SEARCH,
// UID FETCH, the channels, until every subscriber has it.
func BenchmarkWatchLatency(b *testing.B) {
	for _, n := range []int{1, 500} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			ts := newTestServer(b, modePlain, capsFull)
			c := newClient(b, watchOptions(b, ts, modePlain))
			subs := make([]*imap.Subscription, n)
			for i := range subs {
				subs[i] = subscribe(b, c, "INBOX", 0)
			}
			raw := numbered(1)
			b.ReportAllocs()
			for b.Loop() {
				ts.deliver(b, "INBOX", raw, time.Now())
				for _, sub := range subs {
					recv(b, sub)
				}
			}
		})
	}
}
