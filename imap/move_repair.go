package imap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
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
	noted  bool // the fingerprint is known
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
