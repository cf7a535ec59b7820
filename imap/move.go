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
func (c *Client) Move(ctx context.Context, from string, uid uint32, to string) (uint32, error) {
	op := fmt.Sprintf("move message %d from %q to %q", uid, from, to)
	err := checkTarget(from, uid)
	if err == nil {
		err = checkFolder(to)
	}
	if err == nil && canonicalFolder(from) == canonicalFolder(to) {
		err = fmt.Errorf("source and target are the same folder: %w", ErrInvalid)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var newUID uint32
	err = c.do(ctx, op, func(cn *conn) error {
		useMove := cn.caps.Has(goimap.CapMove)
		if !useMove && !cn.caps.Has(goimap.CapUIDPlus) {
			return fmt.Errorf("%w: the server has neither MOVE nor UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
		}
		if _, _, err := cn.selectFolder(from, true); err != nil {
			return err
		}
		if err := checkUIDs(cn, from, []uint32{uid}); err != nil {
			return err
		}
		var err error
		if useMove {
			newUID, err = uidMove(cn, uid, to)
		} else {
			newUID, err = copyExpunge(cn, uid, to)
		}
		return err
	})
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

// copyExpunge moves with UIDPLUS: UID COPY, then (pipelined) UID STORE
// +FLAGS.SILENT (\Deleted) and UID EXPUNGE of uid alone. Nothing is marked
// when the copy fails.
func copyExpunge(cn *conn, uid uint32, to string) (uint32, error) {
	set := goimap.UIDSetNum(goimap.UID(uid))
	cd, err := cn.ic.Copy(set, canonicalFolder(to)).Wait()
	if err != nil {
		return 0, fmt.Errorf("uid copy: %w", err)
	}
	store := cn.ic.Store(set, &goimap.StoreFlags{Op: goimap.StoreFlagsAdd, Silent: true, Flags: []goimap.Flag{goimap.FlagDeleted}}, nil)
	expunge := cn.ic.UIDExpunge(set)
	storeErr := store.Close()
	expungeErr := expunge.Close()
	if err := errors.Join(storeErr, expungeErr); err != nil {
		return 0, fmt.Errorf("copied, but removing the original failed: %w", err)
	}
	return destUID(cd.SourceUIDs, cd.DestUIDs, uid), nil
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
