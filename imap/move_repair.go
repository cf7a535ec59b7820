package imap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// repairBudget bounds a repair of an interrupted move when the caller's ctx
// has no deadline of its own; with one, the repair tries until it ends.
// Connections are tried one after the other, repairPause apart (and after
// the pool's dial backoff): a few quick failures in a row are common while
// the network that broke the move is still failing.
const (
	repairBudget = 15 * time.Second
	repairPause  = 50 * time.Millisecond
)

// copySettle is how long a repair that found no copy waits before it looks
// once more, when the COPY may have reached the server: the server may
// still be running a command whose connection is already gone.
const copySettle = 250 * time.Millisecond

// maxCopyCandidates bounds the messages a repair compares with the
// original: those that arrived in the target since the COPY and carry its
// Message-ID.
const maxCopyCandidates = 100

// copyState is how far a move without MOVE got.
type copyState int

const (
	copyPending copyState = iota // UID COPY not sent yet
	copySent                     // sent; no answer: the server may have copied
	copyRefused                  // the server answered NO or BAD: nothing copied
	copyDone                     // copied; the original may still be there
)

// copyMove is a move by UID COPY + UID EXPUNGE in progress: what a repair
// on another connection needs to finish it.
type copyMove struct {
	from, to string
	uid      uint32
	validity uint32 // the source folder's UIDVALIDITY
	state    copyState
	newUID   uint32 // from COPYUID; 0 until known

	// Noted before the COPY: the target's UIDVALIDITY and UIDNEXT (every
	// copy made since has a UID of at least uidNext), and what identifies
	// the original among them.
	targetValidity, uidNext uint32
	messageID               string
	date                    time.Time // INTERNALDATE, kept by COPY
	size                    int64     // RFC822.SIZE

	// byMove: the move went by UID MOVE, which is not atomic either: Dovecot
	// 2.3 copies, then expunges, and a connection cut in between leaves the
	// message in both folders. Nothing is noted before a MOVE (it would
	// cost every move two round trips); a repair notes the original's
	// fingerprint afterwards and compares every message of the target.
	byMove bool
	noted  bool      // the fingerprint is known
	at     time.Time // when it joined the unfinished moves
	// lateFrom: a copy in the target that a repair's search did not find
	// has a UID of at least this (0: not searched yet).
	lateFrom atomic.Uint32
}

// prepare notes the target's UIDNEXT and the original's fingerprint.
func (mv *copyMove) prepare(cn *conn) error {
	sd, err := cn.ic.Status(canonicalFolder(mv.to), &goimap.StatusOptions{UIDNext: true, UIDValidity: true}).Wait()
	if err != nil {
		return fmt.Errorf("status %q: %w", mv.to, err)
	}
	mv.targetValidity, mv.uidNext = sd.UIDValidity, uint32(sd.UIDNext)
	found, err := mv.fingerprint(cn)
	if err == nil && !found {
		err = &MissingUIDsError{Folder: canonicalFolder(mv.from), UIDs: []uint32{mv.uid}}
	}
	return err
}

// fingerprint notes the original's Message-ID, INTERNALDATE and size from
// the selected source folder; found is false when the UID is not there.
func (mv *copyMove) fingerprint(cn *conn) (found bool, err error) {
	msgs, err := cn.ic.Fetch(goimap.UIDSetNum(goimap.UID(mv.uid)),
		&goimap.FetchOptions{UID: true, Envelope: true, InternalDate: true, RFC822Size: true}).Collect()
	if err != nil {
		return false, fmt.Errorf("uid fetch: %w", err)
	}
	if len(msgs) == 0 {
		return false, nil
	}
	if env := msgs[0].Envelope; env != nil {
		mv.messageID = env.MessageID
	}
	mv.date, mv.size, mv.noted = msgs[0].InternalDate, msgs[0].RFC822Size, true
	return true, nil
}

// noteAfterMove is a repair's first step after an interrupted UID MOVE: it
// looks at the source afresh. gone: the original left it (the MOVE
// happened); else its fingerprint is noted, for findCopy to compare with
// every message of the target. recreated: the source's UIDVALIDITY
// changed, its UIDs are other messages: nothing to do.
func (mv *copyMove) noteAfterMove(cn *conn) (gone, recreated bool, err error) {
	sel, err := cn.selectCurrent(mv.from, true) // the view may predate the MOVE's expunge
	if err != nil {
		return false, false, err
	}
	if sel.uidValidity != mv.validity {
		return false, true, nil
	}
	found, err := mv.fingerprint(cn)
	if err != nil {
		return false, false, err
	}
	mv.uidNext = 1 // nothing was noted before the MOVE: every message of the target is a candidate
	return !found, false, nil
}

// needsRepair reports whether err, which ended the move, may have left the
// message in both folders: the connection failed (or timed out) after the
// COPY was sent.
func (mv *copyMove) needsRepair(err error) bool {
	return mv != nil && (mv.state == copySent || mv.state == copyDone) && transient(err)
}

// isStatus reports a tagged NO or BAD: the server answered the command.
func isStatus(err error) bool {
	var ie *goimap.Error
	return errors.As(err, &ie) && ie.Type != goimap.StatusResponseTypeBye
}

// repairMove finishes a move that cause interrupted, on other connections
// and within ctx: when the copy is in the target, it removes the original
// and returns the copy's UID; when it is not, nothing was moved and cause
// is returned. If no connection works before ctx ends (or repairBudget,
// when ctx has no deadline), the message may stay in both folders; the
// error says so (and keeps cause's kind).
func (c *Client) repairMove(ctx context.Context, op string, mv *copyMove, cause error) (uint32, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, repairBudget)
		defer cancel()
	}
	settled := mv.state != copySent // a copy that was answered needs no second look
	for tries := 1; ; tries++ {
		var (
			newUID uint32
			copied bool
		)
		err := c.do(ctx, op+": finishing after a broken connection", func(cn *conn) error {
			var err error
			newUID, copied, err = mv.finish(cn)
			return err
		})
		switch {
		case err == nil && copied:
			c.opts.Logger.Warn("imap: finished a move that a broken connection interrupted",
				"from", mv.from, "to", mv.to, "uid", mv.uid, "new_uid", newUID, "message_id", mv.messageID, "tries", tries, "cause", cause)
			return newUID, nil
		case err == nil && !settled && c.pause(ctx, copySettle):
			settled = true // look once more, later
		case err == nil:
			c.opts.Logger.Debug("imap: an interrupted move copied nothing", "from", mv.from, "to", mv.to, "uid", mv.uid, "message_id", mv.messageID)
			return 0, cause // no copy: nothing moved, nothing to undo
		case !transient(err) || !c.waitBackoff(ctx) || !c.pause(ctx, repairPause):
			return 0, fmt.Errorf("%w (finishing the move failed %d times, last: %v; the message may be in both folders)", cause, tries, err)
		}
	}
}

// waitBackoff waits out the pool's dial backoff when there is one; false
// when ctx or the Client ends first.
func (c *Client) waitBackoff(ctx context.Context) bool {
	wait, _ := c.dialBlocked()
	return c.pause(ctx, wait)
}

// pause waits d; false when ctx ends first (or would: its deadline comes
// sooner) or the Client closes.
func (c *Client) pause(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-c.done:
		return false
	}
}

// finish looks for the copy unless COPYUID named it and, when there is
// one, removes the original (a UID already gone is fine). copied is false
// when no copy exists: the move did not happen.
func (mv *copyMove) finish(cn *conn) (newUID uint32, copied bool, err error) {
	if mv.byMove && !mv.noted {
		if !cn.caps.Has(goimap.CapUIDPlus) {
			return 0, false, fmt.Errorf("%w: without UIDPLUS the original of an interrupted MOVE cannot be removed alone", ErrUnsupported)
		}
		gone, recreated, err := mv.noteAfterMove(cn)
		switch {
		case err != nil:
			return 0, false, err
		case gone:
			return 0, true, nil // moved; the new UID is unknown
		case recreated:
			return 0, false, nil
		}
	}
	newUID, copied = mv.newUID, mv.state == copyDone
	if newUID == 0 {
		found, err := mv.findCopy(cn)
		if err != nil {
			return 0, false, err
		}
		if found != 0 {
			newUID, copied = found, true
		}
	}
	if !copied {
		return 0, false, nil
	}
	// Synced: on Dovecot a kept selection that predates the original (a
	// message an earlier move copied in on another connection) does not
	// know its UID, and UID STORE and UID EXPUNGE of it answer OK doing
	// nothing, which would leave the original beside its copy (as
	// MoveMany found; Move's own path checks the UID first).
	sel, err := cn.selectCurrent(mv.from, true)
	if err != nil {
		return 0, false, err
	}
	if sel.uidValidity == mv.validity { // else the folder was recreated: its UIDs are other messages
		if err := removeOriginal(cn, goimap.UIDSetNum(goimap.UID(mv.uid))); err != nil {
			return 0, false, fmt.Errorf("removing the original: %w", err)
		}
	}
	return newUID, true, nil
}

// findCopy returns the UID of the copy of the original in the target: a
// message that arrived since the COPY with the same Message-ID, size and
// internal date, the lowest UID first. 0: none.
func (mv *copyMove) findCopy(cn *conn) (uint32, error) {
	if mv.uidNext == 0 { // the server gave no UIDNEXT: copies cannot be told from older messages
		return 0, nil
	}
	sel, err := cn.selectCurrent(mv.to, false) // the copy may be newer than a kept view
	if err != nil {
		return 0, err
	}
	if mv.targetValidity != 0 && sel.uidValidity != mv.targetValidity { // recreated: a copy would be gone with it
		return 0, nil
	}
	// The server narrows to the size too (LARGER size-1 SMALLER size+1), so
	// that the candidates cut at maxCopyCandidates are all of that size.
	crit := &goimap.SearchCriteria{UID: []goimap.UIDSet{{{Start: goimap.UID(mv.uidNext), Stop: 0}}},
		Larger: mv.size - 1, Smaller: mv.size + 1}
	if mv.messageID != "" {
		crit.Header = []goimap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: mv.messageID}}
	}
	uids, err := searchUIDs(cn, crit)
	if err != nil {
		return 0, err
	}
	// A copy the search did not see yet gets a UID from the UIDNEXT of the
	// target's selection on (finishEarlier looks at newer UIDs only).
	if sel.uidNext > mv.lateFrom.Load() {
		mv.lateFrom.Store(sel.uidNext)
	}
	uids = above(uids, mv.uidNext-1)
	slices.Sort(uids)
	if len(uids) == 0 {
		return 0, nil
	}
	msgs, err := cn.ic.Fetch(uidSet(uids[:min(len(uids), maxCopyCandidates)]),
		&goimap.FetchOptions{UID: true, InternalDate: true, RFC822Size: true}).Collect()
	if err != nil {
		return 0, fmt.Errorf("uid fetch: %w", err)
	}
	slices.SortFunc(msgs, func(a, b *imapclient.FetchMessageBuffer) int { return cmp.Compare(a.UID, b.UID) })
	for _, m := range msgs {
		if m.RFC822Size == mv.size && m.InternalDate.Unix() == mv.date.Unix() {
			return uint32(m.UID), nil
		}
	}
	return 0, nil
}

// Unfinished moves. A move whose COPY (or MOVE) went out and whose outcome
// Move could not learn may still leave the message in both folders: the
// repair could not reach the server before ctx ended, or the server ran
// the command after the repair had looked (a command can sit in a busy
// server's socket buffer after its connection is gone). The caller, told
// that the move failed, then finds the message in both folders and moves
// one of them again, which made a second copy (as
// TestFaultMoveAgainAfterLateCopy plays through the proxy). So the Client
// remembers such moves for a while, and a Move that may meet one finishes
// it first (finishEarlier): a move of the same message from the same
// folder, or of a message in the folder it went to that has its
// fingerprint. What the server did is learned again there, before
// anything is copied a second time.
const (
	maxUnfinished = 64
	unfinishedTTL = 2 * time.Minute
)

// unfinishedMoves are the moves whose outcome is unknown, oldest first.
type unfinishedMoves struct {
	mu   sync.Mutex
	list []*copyMove
	// settling serializes finishing them: two Moves may meet the same one.
	settling sync.Mutex
}

// add remembers mv (from now), forgetting the oldest beyond maxUnfinished.
func (u *unfinishedMoves) add(mv *copyMove) {
	u.mu.Lock()
	defer u.mu.Unlock()
	mv.at = time.Now()
	u.list = append(u.list, mv)
	if n := len(u.list) - maxUnfinished; n > 0 {
		u.list = slices.Delete(u.list, 0, n)
	}
}

// related returns the unfinished move of uid from folder from (nil if
// none) and those into from, after forgetting the expired ones.
func (u *unfinishedMoves) related(from string, uid uint32) (same *copyMove, into []*copyMove) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.list = slices.DeleteFunc(u.list, func(mv *copyMove) bool { return time.Since(mv.at) > unfinishedTTL })
	from = canonicalFolder(from)
	for _, mv := range u.list {
		switch {
		case canonicalFolder(mv.from) == from && mv.uid == uid:
			if same == nil { // the oldest: its search for a copy covers the later ones'
				same = mv
			}
		case canonicalFolder(mv.to) == from:
			into = append(into, mv)
		}
	}
	return same, into
}

// has reports whether mv is still remembered.
func (u *unfinishedMoves) has(mv *copyMove) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Contains(u.list, mv)
}

// forget drops mv, or with mv nil every move of uid from folder from.
func (u *unfinishedMoves) forget(mv *copyMove, from string, uid uint32) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.list = slices.DeleteFunc(u.list, func(m *copyMove) bool {
		return m == mv || mv == nil && canonicalFolder(m.from) == canonicalFolder(from) && m.uid == uid
	})
}

// UnfinishedMoveError is the error of a Move whose connection broke after
// its MOVE or COPY went out and whose outcome it could not learn: the
// message may be in both folders, or reach the target later. It wraps the
// connection's error (ErrConnection or a timeout), whose kind it keeps.
// The Client remembers the move for a while: a later Move of the message,
// from either folder, finishes this one first instead of copying again.
type UnfinishedMoveError struct {
	From, To string
	UID      uint32
	Err      error
}

// Error implements error.
func (e *UnfinishedMoveError) Error() string {
	return fmt.Sprintf("%v (the outcome is unknown: the message may be in %q, in %q or in both; moving it again finishes this move first)", e.Err, e.From, e.To)
}

// Unwrap returns the connection's error.
func (e *UnfinishedMoveError) Unwrap() error { return e.Err }

// unknown reports whether a move that failed may still have copied: its
// COPY or MOVE went out and no answer said what the server did.
func (mv *copyMove) unknown() bool {
	return mv != nil && (mv.state == copySent || mv.state == copyDone)
}

// sameMessage reports whether o's fingerprint is mv's.
func (mv *copyMove) sameMessage(o *copyMove) bool {
	return mv.messageID == o.messageID && mv.size == o.size && mv.date.Unix() == o.date.Unix()
}

// finishEarlier finishes, on cn, the unfinished moves that moving uid from
// folder from (selected, uid checked) to to may meet: those into from,
// when uid may be their copy, and the one of uid itself. done: that one
// had copied to to after all, and the original is gone now; newUID is the
// copy. When it returns with done false, from is selected again and uid
// checked again.
func (c *Client) finishEarlier(cn *conn, from string, uid uint32, to string) (done bool, newUID uint32, err error) {
	same, into := c.unfinished.related(from, uid)
	if same == nil && len(into) == 0 {
		return false, 0, nil
	}
	// A message older than what a repair of the move saw cannot be a copy
	// it missed: most moves from the folder pay nothing more.
	into = slices.DeleteFunc(into, func(mv *copyMove) bool { return uid < max(mv.lateFrom.Load(), mv.uidNext) })
	if len(into) > 0 {
		fp := &copyMove{from: from, uid: uid}
		if _, err := fp.fingerprint(cn); err != nil {
			return false, 0, err
		}
		for _, mv := range into {
			if _, _, err := c.settle(cn, mv, fp); err != nil {
				return false, 0, err
			}
		}
	}
	if same != nil {
		n, copied, err := c.settle(cn, same, nil)
		if err != nil {
			return false, 0, err
		}
		if copied && canonicalFolder(same.to) == canonicalFolder(to) {
			return true, n, nil
		}
	}
	if _, err := cn.selectCurrent(from, true); err != nil {
		return false, 0, err
	}
	return false, 0, checkUIDs(cn, from, []uint32{uid})
}

// settle finishes the unfinished move mv on cn as a repair does, unless
// copyOf is set and is not a copy of mv's original by its fingerprint (a
// move whose repair never ran has none yet: it is finished anyway). copied:
// the copy is there, the original is gone now and mv is forgotten. A
// server's refusal (NO, BAD: a folder deleted since, say) forgets mv too; a
// broken connection keeps it for the next try.
func (c *Client) settle(cn *conn, mv, copyOf *copyMove) (newUID uint32, copied bool, err error) {
	c.unfinished.settling.Lock()
	defer c.unfinished.settling.Unlock()
	if !c.unfinished.has(mv) || copyOf != nil && mv.noted && !mv.sameMessage(copyOf) {
		return 0, false, nil
	}
	newUID, copied, err = mv.finish(cn)
	switch {
	case err != nil && !isStatus(err) && !errors.Is(err, ErrUnsupported):
		return 0, false, err
	case err != nil:
		c.unfinished.forget(mv, "", 0)
		c.opts.Logger.Debug("imap: an unfinished move cannot be finished", "from", mv.from, "to", mv.to, "uid", mv.uid, "err", err)
		return 0, false, nil
	case copied:
		c.unfinished.forget(mv, "", 0)
		c.opts.Logger.Warn("imap: finished an earlier move that a broken connection left unfinished",
			"from", mv.from, "to", mv.to, "uid", mv.uid, "new_uid", newUID, "message_id", mv.messageID)
	}
	return newUID, copied, nil
}
