package imap

import (
	"context"
	"errors"
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
)

// Move moves message uid from folder from to folder to and returns its UID
// there: from COPYUID, or 0 when the server gives none.
//
// It SELECTs from, checks that uid exists (ErrMessageNotFound, nothing
// moved), then uses UID MOVE when the server has MOVE. Without MOVE but
// with UIDPLUS it sends UID COPY and, once the copy is made, UID STORE
// +FLAGS.SILENT (\Deleted) and UID EXPUNGE of that one UID: other messages
// already marked \Deleted stay. Without either it refuses with
// ErrUnsupported: a plain EXPUNGE would also remove every other message
// marked \Deleted in the folder (which go-imap's own fallback does, so its
// Move is never called on such servers). A missing target folder is
// ErrFolderNotFound (NO [TRYCREATE]); the same folder twice is ErrInvalid.
//
// COPY and EXPUNGE are two commands: a connection that breaks between them
// (or before the answer to COPY) would leave the message in both folders.
// Move then finishes the job on another connection, within ctx: it looks
// for the copy in the target (by COPYUID, else among the UIDs that arrived
// since the COPY, by Message-ID, internal date and size) and, when it is
// there, removes the original and reports success; when it is not, nothing
// was moved and the first error is returned. Only when ctx ends before
// that repair can run may both copies remain (see repairMove). UID MOVE is
// no safer: Dovecot 2.3 copies, then expunges, and a cut in between left
// the message in both folders (the fault tests on Dovecot saw it). A MOVE
// cut off gets the same repair, which notes the original's fingerprint
// only then (the normal path pays nothing) and compares every message of
// the target; an original already gone means the MOVE happened.
//
// A move whose outcome the repair could not learn (no connection worked
// before ctx ended, or no copy was there yet while the server may still
// run the command) fails with an *UnfinishedMoveError, and the Client
// remembers it: a later Move of that message, the original again or its
// copy from the target, first finishes it (removes the original when the
// copy is there) instead of making a second copy. A retry of the same
// move then reports the copy the first one made.
func (c *Client) Move(ctx context.Context, from string, uid uint32, to string) (uint32, error) {
	op := fmt.Sprintf("move message %d from %q to %q", uid, from, to)
	err := checkTarget(from, uid)
	if err == nil {
		err = checkMoveTarget(from, to)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var (
		newUID uint32
		mv     *copyMove // the COPY or MOVE sent, for a repair
	)
	err = c.do(ctx, op, func(cn *conn) error {
		mv = nil // retryStale may run this twice
		useMove := cn.caps.Has(goimap.CapMove)
		if !useMove && !cn.caps.Has(goimap.CapUIDPlus) {
			return fmt.Errorf("%w: the server has neither MOVE nor UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
		}
		sel, _, err := cn.selectFolder(from, true)
		if err != nil {
			return err
		}
		if err := checkUIDs(cn, from, []uint32{uid}); err != nil {
			return err
		}
		done, earlier, err := c.finishEarlier(cn, from, uid, to)
		if err != nil || done {
			newUID = earlier
			return err
		}
		if useMove {
			mv = &copyMove{from: from, to: to, uid: uid, validity: sel.uidValidity, byMove: true, state: copySent}
			changes := cn.changes.Load()
			newUID, err = uidMove(cn, uid, to)
			switch {
			case err != nil && isStatus(err): // the server answered: it moved nothing
				mv.state = copyRefused
			case err == nil && cn.changes.Load() == changes: // no EXPUNGE came: see removeMoved
				mv.state, mv.newUID = copyDone, newUID
				err = c.removeMoved(cn, mv, false)
			}
			return err
		}
		mv = &copyMove{from: from, to: to, uid: uid, validity: sel.uidValidity}
		newUID, err = c.copyExpunge(cn, mv)
		return err
	})
	if err != nil && mv.needsRepair(err) {
		newUID, err = c.repairMove(ctx, op, mv, err)
	}
	switch {
	case err == nil:
		c.unfinished.forget(nil, from, uid) // the original is gone: a late copy of it cannot come
	case mv.unknown():
		c.unfinished.add(mv)
		var ue *UnfinishedMoveError
		if !errors.As(err, &ue) {
			err = &UnfinishedMoveError{From: from, To: to, UID: uid, Err: err}
		}
	}
	return newUID, err
}

// uidMove sends UID MOVE.
func uidMove(cn *conn, uid uint32, to string) (uint32, error) {
	set := goimap.UIDSetNum(goimap.UID(uid))
	md, err := cn.ic.Move(set, canonicalFolder(to)).Wait()
	if err != nil {
		return 0, fmt.Errorf("uid move: %w", err)
	}
	return destUID(md.SourceUIDs, md.DestUIDs, uid), nil
}

// copyExpunge moves with UIDPLUS: it notes what a repair needs (see
// copyMove.prepare), sends UID COPY, then UID STORE +FLAGS.SILENT
// (\Deleted) and UID EXPUNGE of uid alone. Nothing is marked
// when the copy fails. mv records how far it got.
func (c *Client) copyExpunge(cn *conn, mv *copyMove) (uint32, error) {
	if err := mv.prepare(cn); err != nil {
		return 0, err
	}
	set := goimap.UIDSetNum(goimap.UID(mv.uid))
	mv.state = copySent
	cd, err := cn.ic.Copy(set, canonicalFolder(mv.to)).Wait()
	if err != nil {
		if isStatus(err) { // the server answered: it did not copy
			mv.state = copyRefused
		}
		return 0, fmt.Errorf("uid copy: %w", err)
	}
	mv.state, mv.newUID = copyDone, destUID(cd.SourceUIDs, cd.DestUIDs, mv.uid)
	if err := c.removeMoved(cn, mv, true); err != nil {
		return 0, fmt.Errorf("copied, but removing the original failed: %w", err)
	}
	return mv.newUID, nil
}

// removeMoved makes sure that the original of a move whose copy was just
// made is gone. Dovecot 2.3 now and then answers OK to a UID EXPUNGE, and
// to a UID MOVE, without expunging, and reports no EXPUNGE: a move that
// succeeded left its original behind (TestFaultMoveNoLoss on Dovecot, a
// duplicate in a few dozen runs under load, with no cut near that
// message). With expunge set it first removes the original (UID STORE,
// UID EXPUNGE); when no EXPUNGE came back, it syncs, looks for the UID and
// removes it once more while it is there.
func (c *Client) removeMoved(cn *conn, mv *copyMove, expunge bool) error {
	set := goimap.UIDSetNum(goimap.UID(mv.uid))
	for try := 0; ; try++ {
		if expunge || try > 0 {
			n, err := storeExpunge(cn, set)
			if err != nil || n > 0 {
				return err
			}
		}
		if err := cn.sync(); err != nil {
			return err
		}
		found, err := searchUIDs(cn, &goimap.SearchCriteria{UID: []goimap.UIDSet{set}})
		if err != nil || len(found) == 0 {
			return err
		}
		c.opts.Logger.Warn("imap: the server answered a move without expunging the original; removing it again",
			"from", mv.from, "to", mv.to, "uid", mv.uid, "new_uid", mv.newUID, "try", try)
		if try == 2 {
			return fmt.Errorf("uid expunge %d: %w: the server answered OK and kept the message", mv.uid, ErrProtocol)
		}
	}
}

// removeOriginal marks the UIDs of set \Deleted and expunges them alone
// (UIDPLUS); a UID that is gone already is no error. The UID EXPUNGE waits for the
// STORE's answer: Dovecot 2.3 may run two pipelined UID commands in
// parallel, and an EXPUNGE that overtakes the STORE finds nothing to
// expunge and still answers OK, which left the message in both folders
// (seen with 8 concurrent moves: a few in a thousand).
func removeOriginal(cn *conn, set goimap.UIDSet) error {
	_, err := storeExpunge(cn, set)
	return err
}

// storeExpunge is removeOriginal; n is the number of EXPUNGE responses
// that came with the UID EXPUNGE's answer (those of other sessions' changes
// included: 0 means that nothing of set was expunged).
func storeExpunge(cn *conn, set goimap.UIDSet) (n int, err error) {
	store := &goimap.StoreFlags{Op: goimap.StoreFlagsAdd, Silent: true, Flags: []goimap.Flag{goimap.FlagDeleted}}
	if err := cn.ic.Store(set, store, nil).Close(); err != nil {
		return 0, fmt.Errorf("uid store: %w", err)
	}
	seqs, err := cn.ic.UIDExpunge(set).Collect()
	if err != nil {
		return 0, fmt.Errorf("uid expunge: %w", err)
	}
	return len(seqs), nil
}

// destUID returns the target UID of uid from COPYUID sets, 0 when unknown.
func destUID(src, dst goimap.NumSet, uid uint32) uint32 {
	s, ok1 := src.(goimap.UIDSet)
	d, ok2 := dst.(goimap.UIDSet)
	if !ok1 || !ok2 {
		return 0
	}
	srcs, ok1 := s.Nums()
	dsts, ok2 := d.Nums()
	if !ok1 || !ok2 || len(srcs) != len(dsts) {
		return 0
	}
	for i, u := range srcs {
		if uint32(u) == uid {
			return uint32(dsts[i])
		}
	}
	return 0
}

// maxMoveMany bounds the UIDs of one MoveMany (one command line).
const maxMoveMany = 1000

// MoveMany moves the messages uids from folder from to folder to in one
// command and returns how many moved: the source UIDs of COPYUID, or the
// UIDs asked for when the server names none. UIDs that are not (or no
// longer) in from are skipped, not an error: MoveMany is for emptying a
// folder of what a search found (delete_inbox), where a message expunged
// meanwhile is already where the caller wanted it gone from.
//
// It uses UID MOVE when the server has MOVE, else UID COPY, UID STORE
// +FLAGS.SILENT (\Deleted) and UID EXPUNGE of those UIDs alone (UIDPLUS);
// without either it refuses with ErrUnsupported, like Move. Unlike Move it
// does not repair an interrupted batch: a connection that breaks after the
// command went out may leave some messages in both folders. Nothing is
// lost, and calling MoveMany again for what is still in from finishes the
// job (with a second copy in the target of what was copied twice), so it
// suits a target like Trash; a single message that must not be duplicated
// goes through Move.
func (c *Client) MoveMany(ctx context.Context, from string, uids []uint32, to string) (int, error) {
	op := fmt.Sprintf("move %d messages from %q to %q", len(uids), from, to)
	err := checkFolder(from)
	if err == nil {
		err = checkUIDList(uids, maxMoveMany)
	}
	if err == nil {
		err = checkMoveTarget(from, to)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	moved := 0
	err = c.do(ctx, op, func(cn *conn) error {
		useMove := cn.caps.Has(goimap.CapMove)
		if !useMove && !cn.caps.Has(goimap.CapUIDPlus) {
			return fmt.Errorf("%w: the server has neither MOVE nor UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
		}
		// UIDs newer than a kept view would be skipped: sync it first.
		if _, err := cn.selectCurrent(from, true); err != nil {
			return err
		}
		set := uidSet(uids)
		if useMove {
			md, err := cn.ic.Move(set, canonicalFolder(to)).Wait()
			if err != nil {
				return fmt.Errorf("uid move: %w", err)
			}
			moved = countMoved(md.SourceUIDs, len(uids))
			return nil
		}
		cd, err := cn.ic.Copy(set, canonicalFolder(to)).Wait()
		if err != nil {
			return fmt.Errorf("uid copy: %w", err)
		}
		moved = countMoved(cd.SourceUIDs, len(uids))
		if err := removeOriginal(cn, set); err != nil {
			return fmt.Errorf("copied, but removing the originals failed (they are in both folders; moving them again finishes the job): %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return moved, nil
}

// countMoved is the number of UIDs in a COPYUID source set, or asked when
// the server sent no COPYUID. A server that moved nothing (every UID was
// gone) sends no COPYUID either; asked is then an overcount, which only
// a concurrent expunge can cause.
func countMoved(src goimap.NumSet, asked int) int {
	s, ok := src.(goimap.UIDSet)
	if !ok || len(s) == 0 {
		return asked
	}
	nums, ok := s.Nums()
	if !ok {
		return asked
	}
	return len(nums)
}

// checkMoveTarget refuses a target folder no server takes, or the source
// itself.
func checkMoveTarget(from, to string) error {
	if err := checkFolder(to); err != nil {
		return err
	}
	if canonicalFolder(from) == canonicalFolder(to) {
		return fmt.Errorf("source and target are the same folder: %w", ErrInvalid)
	}
	return nil
}
