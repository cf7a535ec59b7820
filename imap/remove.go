package imap

import (
	"context"
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
)

// RemoveMessage expunges message uid of folder, and only it: it SELECTs the
// folder, checks that uid exists (ErrMessageNotFound, nothing removed; on a
// kept selection after a NOOP and a second look, see retryStale), then sends UID STORE
// +FLAGS.SILENT (\Deleted), waits for its answer, and UID EXPUNGE of that
// one UID (UIDPLUS), as Move does for the original of a copy. Other
// messages marked \Deleted stay. Without UIDPLUS it refuses with
// ErrUnsupported: a plain EXPUNGE would remove them too.
//
// It is for messages the server itself replaces (a draft saved again, or
// sent), not a "delete" that users could want to undo: that is a move to
// Trash.
func (c *Client) RemoveMessage(ctx context.Context, folder string, uid uint32) error {
	op := fmt.Sprintf("remove message %d from %q", uid, folder)
	if err := checkTarget(folder, uid); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, func(cn *conn) error {
		if !cn.caps.Has(goimap.CapUIDPlus) {
			return fmt.Errorf("%w: the server has no UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
		}
		if _, _, err := cn.selectFolder(folder, true); err != nil {
			return err
		}
		if err := checkUIDs(cn, folder, []uint32{uid}); err != nil {
			return err
		}
		return removeOriginal(cn, goimap.UIDSetNum(goimap.UID(uid)))
	})
}
