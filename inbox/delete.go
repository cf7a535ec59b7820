package inbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/email-mcp/email-mcp/imap"
)

// Delete moves every message of the inbox named by id, and its marker, to
// the Trash folder (\Trash, else "Trash") and forgets the inbox: a second
// Delete is NotFound. It returns how many of the inbox's messages moved
// and where.
func (ib *Inboxes) Delete(ctx context.Context, id string) (deleted int, trash string, err error) {
	in, err := ib.Resolve(ctx, id)
	if err != nil {
		return 0, "", err
	}
	if trash, err = ib.store.FindSpecialUse(ctx, `\Trash`); err != nil {
		return 0, "", inFolder(err, "Trash")
	}
	if trash == "" {
		trash = "Trash"
	}
	for _, folder := range []string{ib.opts.Folder, MarkerFolder} {
		n, err := ib.moveAll(ctx, folder, in.Address, trash)
		if folder == MarkerFolder && isMissing(err) {
			continue
		}
		if err != nil {
			return 0, "", err
		}
		if folder == ib.opts.Folder {
			deleted = n
		}
	}
	ib.known.forget(in.Address) // its marker is gone
	return deleted, trash, nil
}

// moveAll moves every message to addr in folder to trash, a page (one
// MOVE) at a time. A batch cut off may leave copies in both folders
// (imap.Client.MoveMany): the error says so, and Delete again moves what
// is left, at worst with a second copy in Trash.
func (ib *Inboxes) moveAll(ctx context.Context, folder, addr, trash string) (int, error) {
	moved := 0
	for range 1000 { // bounded: 1000 pages of 200
		res, err := ib.store.Search(ctx, folder, imap.SearchCriteria{Recipient: addr}, imap.PageRequest{Limit: 200, UIDsOnly: true})
		if err != nil {
			return moved, inFolder(err, folder)
		}
		if len(res.Messages) == 0 {
			return moved, nil
		}
		uids := make([]uint32, len(res.Messages))
		for i, m := range res.Messages {
			uids[i] = m.UID
		}
		n, err := ib.store.MoveMany(ctx, folder, uids, trash)
		if err != nil {
			return moved, moveError(err, folder, trash)
		}
		moved += n
		if res.NextBeforeUID == 0 {
			return moved, nil
		}
	}
	return moved, nil
}

// moveError explains a failed MOVE of moveAll.
func moveError(err error, folder, trash string) error {
	switch {
	case errors.Is(err, imap.ErrFolderNotFound): // the source was just searched: the target is missing
		return &Error{Kind: FolderMissing, Cause: err,
			Msg: fmt.Sprintf("the trash folder %q does not exist: create it, or mark a folder \\Trash", trash)}
	case errors.Is(err, imap.ErrUnsupported):
		return &Error{Kind: Unsupported, Cause: err, Msg: "this server supports neither MOVE nor UIDPLUS, so messages cannot be moved safely"}
	}
	return inFolder(err, folder)
}
