package imap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// watchBatch is the most messages one UID FETCH of a watcher asks for, so
// that a large catch-up (a long disconnection, a subscriber far behind)
// holds at most watchBatch × WatchPrefixBytes (16 MiB) at once.
const watchBatch = 64

// errStopped ends a watcher's session: it retired (no subscriber for
// WatchLinger) or the Client is closing.
var errStopped = errors.New("imap: watcher stopped")

// watcher is the goroutine and the connection that watch one folder for
// every subscriber to it. Only its goroutine uses the connection; the
// fields below wake are shared with Subscribe and Close under the Client's
// watch.mu.
type watcher struct {
	c        *Client
	folder   string        // canonical
	wake     chan struct{} // a subscriber came, needs catching up, or the last one left
	failures int           // consecutive failed connects or sessions; the goroutine's own

	subs        map[*Subscription]struct{}
	live        bool          // connected with the folder selected
	uidValidity uint32        // 0: none yet, or reset after a change
	lastUID     uint32        // the highest UID the watcher has looked at
	lastErr     error         // why the last connect failed; nil once one succeeds
	retryAt     time.Time     // no Subscribe waits for a connect before this after lastErr
	emptySince  time.Time     // when the last subscriber left; zero while there are some
	marks       []arrivalMark // what arrived by when (ArrivedBy)
	checks      []checkMark   // what had not arrived when (ArrivedAfter)
}

func newWatcher(c *Client, folder string) *watcher {
	return &watcher{c: c, folder: folder, wake: make(chan struct{}, 1), subs: make(map[*Subscription]struct{})}
}

// poke wakes the goroutine without blocking.
func (w *watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// addLocked registers s, attaching it at once when the folder is selected.
func (w *watcher) addLocked(s *Subscription) {
	w.subs[s] = struct{}{}
	w.emptySince = time.Time{}
	if w.live {
		w.attachLocked(s)
	}
	w.poke()
}

// attachLocked fixes where s starts and lets its Subscribe return. One
// behind the watcher gets caught up by the goroutine.
func (w *watcher) attachLocked(s *Subscription) {
	s.uidValidity = w.uidValidity
	s.seen = s.afterUID
	s.attached = true
	close(s.ready)
	if s.seen < w.lastUID {
		w.poke()
	}
}

// remove drops s after Close.
func (w *watcher) remove(s *Subscription) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if _, ok := w.subs[s]; ok {
		w.deleteLocked(s)
	}
}

// deleteLocked removes s; the last one out starts the linger.
func (w *watcher) deleteLocked(s *Subscription) {
	delete(w.subs, s)
	if len(w.subs) == 0 {
		w.emptySince = time.Now()
		w.poke()
	}
}

// run is the watcher's goroutine: it connects, serves until the session
// fails, and reconnects with backoff, until it retires or the Client
// closes. Its subscribers then get the reason.
func (w *watcher) run(ctx context.Context) {
	err := w.loop(ctx)
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.folders[w.folder] == w {
		delete(ws.folders, w.folder)
	}
	if err == ErrClosed {
		err = fmt.Errorf("watch %q: %w", w.folder, err)
	}
	for s := range w.subs {
		s.fail(err)
	}
	w.subs = nil
	ws.running--
	ws.wg.Done()
}

// loop returns nil when the watcher retired, ErrClosed when the Client
// closed, or the error it gave up on.
func (w *watcher) loop(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if !w.sleep(ctx, w.nextAttempt()) {
				break
			}
			w.c.watch.count(&w.c.watch.reconnects)
		}
		cn, check, err := w.open(ctx, attempt == 0)
		if err == nil {
			err = w.serve(ctx, cn, check)
			w.hangUp(cn)
		}
		switch {
		case ctx.Err() != nil || errors.Is(err, errStopped):
			return stopReason(ctx)
		case !transient(err):
			return err
		}
		w.failures++
		w.c.opts.Logger.Warn("imap: watcher lost its connection", "folder", w.folder, "failures", w.failures, "err", err)
	}
	return stopReason(ctx)
}

func stopReason(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrClosed
	}
	return nil
}

// transient reports whether a failure may pass by reconnecting: a broken
// connection or a timeout. Anything the server answered (a missing folder,
// refused credentials, a BAD) is given up on.
func transient(err error) bool {
	return errors.Is(err, ErrConnection) || errors.Is(err, context.DeadlineExceeded)
}

// nextAttempt is how long to wait before the next connect: until the
// retryAt that connectFailed set (the one Subscribe fails at once before),
// else a fresh retryDelay (after a session that failed once connected).
func (w *watcher) nextAttempt() time.Duration {
	ws := &w.c.watch
	ws.mu.Lock()
	at := w.retryAt
	ws.mu.Unlock()
	if d := time.Until(at); d > 0 {
		return d
	}
	return w.retryDelay()
}

// retryDelay is the pool's backoff after the watcher's own failures, or
// what remains of the pool's after a failed dial, whichever is longer.
func (w *watcher) retryDelay() time.Duration { return w.retryDelayAfter(max(w.failures, 1)) }

// retryDelayAfter is retryDelay after n failures.
func (w *watcher) retryDelayAfter(n int) time.Duration {
	d := backoff(n)
	if wait, _ := w.c.dialBlocked(); wait > d {
		d = wait
	}
	return d
}

// open dials, logs in and EXAMINEs the folder. check reports that mail
// arrived since the watcher last looked (after a reconnection).
func (w *watcher) open(ctx context.Context, first bool) (cn *conn, check bool, err error) {
	op := fmt.Sprintf("watch %q", w.folder)
	if first {
		if _, err := w.c.dialBlocked(); err != nil {
			return nil, false, w.connectFailed(fmt.Errorf("%s: %w", op, err))
		}
	}
	cn, err = w.c.connect(ctx, nil)
	w.c.dialed(ctx, err)
	if err != nil {
		return nil, false, w.connectFailed(fmt.Errorf("%s: %w", op, err))
	}
	sel, err := w.examine(ctx, cn)
	if err != nil {
		cn.logout()
		return nil, false, w.connectFailed(translate(op, err))
	}
	w.c.watch.mu.Lock()
	w.c.watch.conns++
	w.c.watch.mu.Unlock()
	w.c.opts.Logger.Debug("imap: watcher connected", "folder", w.folder, "idle", cn.caps.Has(goimap.CapIdle))
	return cn, w.selected(sel.uidValidity, sel.uidNext), nil
}

// examine EXAMINEs the folder, again if it is selected already, within
// CommandTimeout.
func (w *watcher) examine(ctx context.Context, cn *conn) (sel selection, err error) {
	cn.sel = nil // no cached selection: ask the server
	err = cn.run(ctx, w.c.opts.CommandTimeout, func(*imapclient.Client) error {
		var err error
		if sel, _, err = cn.selectFolder(w.folder, false); err == nil && sel.uidNext == 0 {
			sel.uidNext, err = uidNextBySearch(cn)
		}
		return err
	})
	return sel, err
}

// connectFailed fails the subscribers still waiting in Subscribe (those
// attached wait for the reconnection) and returns err.
func (w *watcher) connectFailed(err error) error {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if errors.Is(err, context.Canceled) {
		return err // closing: run fails everyone with ErrClosed
	}
	w.live, w.lastErr = false, err
	// The next attempt, as loop will wait for it (the pool's backoff
	// included): until then Subscribe fails at once, as the pool does.
	w.retryAt = time.Now().Add(w.retryDelayAfter(w.failures + 1))
	for s := range w.subs {
		if !s.attached {
			w.deleteLocked(s)
			s.fail(err)
		}
	}
	return err
}

// selected records a fresh selection. A new UIDVALIDITY closes every
// attached subscription with ErrUIDValidityChanged and starts over at
// UIDNEXT; the same one resumes after the last UID looked at, and check
// reports whether mail arrived meanwhile. Subscribers waiting in Subscribe
// attach.
func (w *watcher) selected(uidValidity, uidNext uint32) (check bool) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w.uidValidity != 0 && w.uidValidity != uidValidity {
		err := fmt.Errorf("watch %q: %w: %d, now %d", w.folder, ErrUIDValidityChanged, w.uidValidity, uidValidity)
		for s := range w.subs {
			if s.attached {
				w.deleteLocked(s)
				s.fail(err)
			}
		}
		w.uidValidity = 0
	}
	if w.uidValidity == 0 {
		w.uidValidity, w.lastUID = uidValidity, uidNext-1
	} else {
		check = uidNext-1 > w.lastUID
	}
	w.live, w.lastErr = true, nil
	w.markLocked(uidValidity, uidNext)
	for s := range w.subs {
		if !s.attached {
			w.attachLocked(s)
		}
	}
	return check
}

// hangUp closes the connection (LOGOUT when it is still healthy).
func (w *watcher) hangUp(cn *conn) {
	ws := &w.c.watch
	ws.mu.Lock()
	w.live = false
	ws.conns--
	ws.mu.Unlock()
	cn.logout()
}

// count adds one to a counter of ws.
func (ws *watchState) count(n *uint64) {
	ws.mu.Lock()
	*n++
	ws.mu.Unlock()
}

// uidNextBySearch stands in for a SELECT answer without UIDNEXT: the
// highest UID plus one.
func uidNextBySearch(cn *conn) (uint32, error) {
	uids, err := searchUIDs(cn, &goimap.SearchCriteria{})
	if err != nil {
		return 0, err
	}
	if len(uids) == 0 {
		return 1, nil
	}
	return slices.Max(uids) + 1, nil
}
