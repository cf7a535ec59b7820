package imap

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// event is what ends a watcher's wait.
type event int

const (
	evMail    event = iota // the server reported EXISTS
	evCatchUp              // a subscriber is behind the watcher
	evTimer                // the IDLE period or the poll interval is over
	evLost                 // the server closed the connection
	evStop                 // retire, or the Client is closing
)

// serve runs one session on cn until it fails or the watcher stops: fetch
// what is new, then IDLE (or poll with NOOP) until there is more. Every
// WatchRefresh it EXAMINEs the folder again (see reselect).
func (w *watcher) serve(ctx context.Context, cn *conn, check bool) error {
	idle := cn.caps.Has(goimap.CapIdle)
	refreshAt := time.Now().Add(w.c.opts.WatchRefresh)
	for {
		if err := w.sync(ctx, cn, check); err != nil {
			return err
		}
		w.failures = 0
		var err error
		switch {
		case !time.Now().Before(refreshAt):
			check, err = w.reselect(ctx, cn)
			refreshAt = time.Now().Add(w.c.opts.WatchRefresh)
		case w.activePoll():
			check, err = w.poll(ctx, cn, w.c.opts.ActivePoll)
		case idle:
			check, err = w.idle(ctx, cn, time.Until(refreshAt))
		default:
			check, err = w.poll(ctx, cn, w.c.opts.PollInterval)
		}
		if err != nil {
			return err
		}
	}
}

// reselect EXAMINEs the folder again. A server may keep a session on a
// folder that was deleted and created again without a word (Dovecot 2.3
// answers "NO Internal error" to each later command but sends no BYE), or
// miss an EXISTS: the new UIDVALIDITY or UIDNEXT shows either.
func (w *watcher) reselect(ctx context.Context, cn *conn) (check bool, err error) {
	sel, err := w.examine(ctx, cn)
	if err != nil {
		return false, w.sessionErr("examine", err)
	}
	return w.selected(sel.uidValidity, sel.uidNext), nil
}

// sessionErr translates a failed exchange of the session.
func (w *watcher) sessionErr(op string, err error) error {
	return translate(fmt.Sprintf("watch %q: %s", w.folder, op), err)
}

// errLost is a connection the server closed while the watcher waited.
func (w *watcher) errLost() error {
	return fmt.Errorf("watch %q: %w: the server closed the connection", w.folder, ErrConnection)
}

// idle runs one IDLE until there is something to do or d has passed, then
// ends it (DONE and its OK, within CommandTimeout: a server that does not
// answer is taken for dead). imapclient would restart the IDLE itself
// after 28 minutes; d is at most WatchRefresh, at most 25 minutes, so it
// never does. check reports an EXISTS.
func (w *watcher) idle(ctx context.Context, cn *conn, d time.Duration) (check bool, err error) {
	select { // an EXISTS came with the last answers: no IDLE needed
	case <-cn.exists:
		return true, nil
	default:
	}
	var cmd *imapclient.IdleCommand
	ended := false
	defer func() {
		if !ended { // LOGOUT cannot go while IDLE holds the connection
			cn.spoiled = true
		}
	}()
	err = cn.run(ctx, w.c.opts.CommandTimeout, func(ic *imapclient.Client) error {
		var err error
		cmd, err = ic.Idle()
		return err
	})
	if err != nil {
		return false, w.sessionErr("idle", err)
	}
	done := func(ctx context.Context, timeout time.Duration) error {
		return cn.run(ctx, timeout, func(*imapclient.Client) error {
			if err := cmd.Close(); err != nil {
				return err
			}
			return cmd.Wait()
		})
	}
	switch ev := w.wait(ctx, cn, d); ev {
	case evLost:
		return false, w.errLost()
	case evStop: // a polite end, bounded as LOGOUT is
		ended = done(context.Background(), logoutTimeout) == nil
		return false, errStopped
	default:
		if err := done(ctx, w.c.opts.CommandTimeout); err != nil {
			return false, w.sessionErr("idle done", err)
		}
		ended = true
		return ev == evMail, nil
	}
}

// activePoll reports whether the watcher checks with NOOP every ActivePoll
// instead of IDLE: only when ActivePoll is set and someone is waiting.
func (w *watcher) activePoll() bool {
	return w.c.opts.ActivePoll > 0 && !w.empty()
}

// poll waits d, then sends a NOOP; check reports an EXISTS in its answer.
// A subscriber that needs catching up ends the wait early.
func (w *watcher) poll(ctx context.Context, cn *conn, d time.Duration) (check bool, err error) {
	switch ev := w.wait(ctx, cn, d); ev {
	case evLost:
		return false, w.errLost()
	case evStop:
		return false, errStopped
	case evMail, evCatchUp:
		return ev == evMail, nil
	}
	sent := time.Now()
	err = cn.run(ctx, w.c.opts.CommandTimeout, func(ic *imapclient.Client) error { return ic.Noop().Wait() })
	if err != nil {
		return false, w.sessionErr("noop", err)
	}
	select {
	case <-cn.exists:
		return true, nil
	default:
		w.checked(sent)
		return false, nil
	}
}

// checked records a NOOP sent at sent that reported no new mail: every
// message the server had then is one the watcher has looked at (an EXISTS
// since its last search would have ended the wait before the NOOP).
func (w *watcher) checked(sent time.Time) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w.checkedLocked(sent)
}

// wait blocks until an event, d being the timer's. The linger is checked
// meanwhile: with no subscriber for WatchLinger the watcher retires.
func (w *watcher) wait(ctx context.Context, cn *conn, d time.Duration) event {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		lingerC, stopLinger := w.lingerTimer()
		ev := event(-1)
		select {
		case <-cn.exists:
			ev = evMail
		case <-cn.ic.Closed():
			ev = evLost
		case <-ctx.Done():
			ev = evStop
		case <-timer.C:
			ev = evTimer
		case <-w.wake:
			switch {
			case w.lagging():
				ev = evCatchUp
			case w.activePoll():
				// A first subscriber while the watcher IDLEs: end the IDLE
				// now and check every ActivePoll, rather than waiting for
				// the server's (delayed) news.
				ev = evTimer
			}
		case <-lingerC:
			if w.retire() {
				ev = evStop
			}
		}
		stopLinger()
		if ev >= 0 {
			return ev
		}
	}
}

// sleep waits d before a reconnection, longer while there is no
// subscriber (nobody to reconnect for). It returns false when the watcher
// must stop instead.
func (w *watcher) sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	over := false
	for {
		if over && !w.empty() {
			return true
		}
		lingerC, stopLinger := w.lingerTimer()
		select {
		case <-ctx.Done():
			stopLinger()
			return false
		case <-timer.C:
			over = true
		case <-w.wake:
		case <-lingerC:
			if w.retire() {
				stopLinger()
				return false
			}
		}
		stopLinger()
	}
}

// lingerTimer returns a channel that fires when the watcher has had no
// subscriber for WatchLinger (nil while it has some) and its stop.
func (w *watcher) lingerTimer() (<-chan time.Time, func() bool) {
	ws := &w.c.watch
	ws.mu.Lock()
	empty, since := len(w.subs) == 0, w.emptySince
	ws.mu.Unlock()
	if !empty {
		return nil, func() bool { return false }
	}
	t := time.NewTimer(time.Until(since.Add(w.c.opts.WatchLinger)))
	return t.C, t.Stop
}

// retire takes the watcher out of the Client when it has had no subscriber
// for WatchLinger: the next Subscribe starts another.
func (w *watcher) retire() bool {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if len(w.subs) > 0 || time.Since(w.emptySince) < w.c.opts.WatchLinger {
		return false
	}
	if ws.folders[w.folder] == w {
		delete(ws.folders, w.folder)
	}
	return true
}

func (w *watcher) empty() bool {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(w.subs) == 0
}

// lagging reports whether a subscriber is behind the watcher.
func (w *watcher) lagging() bool {
	from, last, _ := w.from()
	return from < last
}

// from is where the next search starts: the last UID the watcher looked
// at (last), or the position of the subscriber furthest behind; and the
// UIDVALIDITY.
func (w *watcher) from() (from, last, uidValidity uint32) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	from = w.lastUID
	for s := range w.subs {
		if s.attached && s.seen < from {
			from = s.seen
		}
	}
	return from, w.lastUID, w.uidValidity
}

// sync fetches the messages after from (when check says there may be new
// ones, or a subscriber is behind) and hands them out: one UID SEARCH UID
// from+1:*, then UID FETCH in batches of watchBatch, skipping batches no
// subscriber needs.
func (w *watcher) sync(ctx context.Context, cn *conn, check bool) error {
	from, last, uidValidity := w.from()
	if !check && from == last {
		return nil
	}
	select { // an EXISTS from now on asks for another round
	case <-cn.exists:
	default:
	}
	var uids []uint32
	err := cn.run(ctx, w.c.opts.CommandTimeout, func(*imapclient.Client) error {
		var err error
		uids, err = uidsAfter(cn, from)
		return err
	})
	if err != nil {
		return w.sessionErr("uid search", err)
	}
	if len(uids) > 0 {
		w.mark(uidValidity, uids[len(uids)-1]+1)
	}
	// lo is where the batch starts: it holds every UID in (lo, upTo]. A
	// subscriber that attached meanwhile at a position below lo did not get
	// the batches before: it is left there (lagging) for the next round.
	// Handing it a later batch and moving it past the earlier ones lost
	// their mail: waits with a past since, started while the watcher was
	// catching up others, timed out with their mail in the folder.
	lo := from
	for batch := range slices.Chunk(uids, watchBatch) {
		upTo := batch[len(batch)-1]
		if !w.wanted(lo, upTo) {
			w.advance(upTo)
			lo = upTo
			continue
		}
		w.c.watch.count(&w.c.watch.fetches)
		var msgs []*Message
		// Up to len(batch) prefixes of WatchPrefixBytes: the deadline of a
		// transfer of that size (StreamPart's rule), not of one command.
		err := cn.run(ctx, w.c.transferTimeout(int64(len(batch))*WatchPrefixBytes), func(*imapclient.Client) error {
			var err error
			msgs, err = fetchMessages(cn, uidValidity, batch, WatchPrefixBytes, false)
			return err
		})
		if err != nil {
			return w.sessionErr("uid fetch", err)
		}
		w.fanOut(lo, upTo, msgs)
		lo = upTo
	}
	w.settle(lo, last)
	return nil
}

// settle moves the subscribers at [lo, last) to last: the search found no
// UID there, and none can appear (UIDs up to last were given out before
// it), so they have seen everything up to last. Without it a subscriber
// whose messages were expunged stayed behind for good.
func (w *watcher) settle(lo, last uint32) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for s := range w.subs {
		if s.attached && s.seen >= lo && s.seen < last {
			s.seen = last
		}
	}
}

// advance moves the watcher past a batch no subscriber needed. One that
// attached meanwhile behind upTo is left there: it is lagging and the next
// round catches it up.
func (w *watcher) advance(upTo uint32) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w.lastUID = max(w.lastUID, upTo)
}

// uidsAfter returns the UIDs above from, ascending, with one UID SEARCH
// UID from+1:* (which matches the last message even when from+1 is beyond
// it: filtered out here).
func uidsAfter(cn *conn, from uint32) ([]uint32, error) {
	if from == math.MaxUint32 {
		return nil, nil
	}
	crit := &goimap.SearchCriteria{UID: []goimap.UIDSet{{{Start: goimap.UID(from + 1), Stop: 0}}}}
	uids, err := searchUIDs(cn, crit)
	if err != nil {
		return nil, err
	}
	uids = above(uids, from)
	slices.Sort(uids)
	return slices.Compact(uids), nil
}

// wanted reports whether a subscriber that the search covered still needs
// a UID up to upTo.
func (w *watcher) wanted(from, upTo uint32) bool {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for s := range w.subs {
		if s.attached && s.seen >= from && s.seen < upTo {
			return true
		}
	}
	return false
}

// fanOut hands a batch (every UID in (from, upTo], msgs being those still
// there) to each subscriber it covers (seen >= from; one that attached
// behind from meanwhile waits for its own round), each message
// with a UID above its position, and moves it and the watcher to upTo. A
// subscriber whose queue is full is closed with ErrOverflow.
func (w *watcher) fanOut(from, upTo uint32, msgs []*Message) {
	mails := make([]NewMail, len(msgs))
	for i, m := range msgs {
		mails[i] = NewMail{Folder: w.folder, UID: m.UID, UIDValidity: m.UIDValidity, InternalDate: m.InternalDate,
			Size: m.Size, Flags: m.Flags, Raw: m.Raw, Complete: m.Complete}
	}
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for s := range w.subs {
		if !s.attached || s.seen < from || s.seen >= upTo {
			continue
		}
		for _, m := range mails {
			if m.UID > s.seen && !s.deliver(m) {
				w.deleteLocked(s)
				s.fail(fmt.Errorf("watch %q: %w (%d messages waiting)", w.folder, ErrOverflow, w.c.opts.WatchQueue))
				break
			}
		}
		s.seen = upTo
	}
	w.lastUID = max(w.lastUID, upTo)
}
