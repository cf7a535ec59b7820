package imap

import (
	"context"
	"fmt"
	"slices"

	goimap "github.com/emersion/go-imap/v2"
)

// maxDelete bounds the UIDs of one Delete (one command line).
const maxDelete = 1000

// DeleteRequest says what Delete removes, and how.
type DeleteRequest struct {
	Folder string
	UIDs   []uint32
	// Trash is the folder the messages move to; ignored when Permanent.
	Trash string
	// Permanent expunges the messages instead of moving them: UID STORE
	// +FLAGS.SILENT (\Deleted) and UID EXPUNGE of those UIDs alone.
	Permanent bool
	// DryRun changes nothing: it reports which UIDs exist and their subjects.
	DryRun bool
}

// Deletion is what Delete did (or, for a dry run, would do).
type Deletion struct {
	Deleted  []uint32          // the UIDs that existed, ascending
	Missing  []uint32          // the UIDs asked for that did not, ascending
	NewUIDs  map[uint32]uint32 // UID in Trash by original UID, from COPYUID; empty when the server names none
	Subjects map[uint32]string // dry run only: each existing message's Subject, raw (decoded RFC 2047)
}

// Delete removes the messages req.UIDs of req.Folder: it moves them to
// req.Trash (UID MOVE; without MOVE, UID COPY then UID STORE \Deleted and UID
// EXPUNGE of those UIDs, which needs UIDPLUS), or with Permanent expunges
// them (UID EXPUNGE, UIDPLUS). It never sends a folder-wide EXPUNGE, which
// would also remove the messages another client marked \Deleted: without
// the extension it needs it refuses with ErrUnsupported.
//
// UIDs not in the folder are named in Deletion.Missing and skipped; when
// none exists it returns a *MissingUIDsError and changes nothing. Like
// MoveMany, a connection that breaks between COPY and EXPUNGE may leave a
// message in both folders; nothing is lost, and deleting again finishes.
func (c *Client) Delete(ctx context.Context, req DeleteRequest) (*Deletion, error) {
	op := fmt.Sprintf("delete %d messages from %q", len(req.UIDs), req.Folder)
	if err := checkDelete(req); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var out *Deletion
	err := c.do(ctx, op, func(cn *conn) error {
		if err := deleteSupported(cn.caps, req.Permanent); err != nil {
			return err
		}
		if _, err := cn.selectCurrent(req.Folder, !req.DryRun); err != nil {
			return err
		}
		var err error
		out, err = deleteOn(cn, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkDelete refuses a request no server can serve, before any I/O.
func checkDelete(req DeleteRequest) error {
	err := checkFolder(req.Folder)
	if err == nil {
		err = checkUIDList(req.UIDs, maxDelete)
	}
	if err != nil || req.Permanent {
		return err
	}
	if err := checkFolder(req.Trash); err != nil {
		return err
	}
	if canonicalFolder(req.Trash) == canonicalFolder(req.Folder) {
		return fmt.Errorf("the folder is the trash folder (a delete there is permanent): %w", ErrInvalid)
	}
	return nil
}

// deleteSupported refuses what would need a folder-wide EXPUNGE.
func deleteSupported(caps goimap.CapSet, permanent bool) error {
	if caps.Has(goimap.CapUIDPlus) || (!permanent && caps.Has(goimap.CapMove)) {
		return nil
	}
	if permanent {
		return fmt.Errorf("%w: the server has no UIDPLUS, and a plain EXPUNGE would also remove other messages marked \\Deleted", ErrUnsupported)
	}
	return fmt.Errorf("%w: the server has neither MOVE nor UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
}

// deleteOn runs a Delete on a connection with req.Folder selected.
func deleteOn(cn *conn, req DeleteRequest) (*Deletion, error) {
	found, err := searchUIDs(cn, &goimap.SearchCriteria{UID: []goimap.UIDSet{uidSet(req.UIDs)}})
	if err != nil {
		return nil, err
	}
	out := &Deletion{NewUIDs: map[uint32]uint32{}}
	for _, u := range req.UIDs {
		switch {
		case slices.Contains(found, u):
			if !slices.Contains(out.Deleted, u) {
				out.Deleted = append(out.Deleted, u)
			}
		case !slices.Contains(out.Missing, u):
			out.Missing = append(out.Missing, u)
		}
	}
	slices.Sort(out.Deleted)
	slices.Sort(out.Missing)
	if len(out.Deleted) == 0 {
		return nil, &MissingUIDsError{Folder: canonicalFolder(req.Folder), UIDs: out.Missing}
	}
	set := uidSet(out.Deleted)
	switch {
	case req.DryRun:
		out.Subjects, err = subjects(cn, set)
		return out, err
	case req.Permanent:
		return out, removeOriginal(cn, set)
	}
	return out, moveToTrash(cn, set, req.Trash, out)
}

// moveToTrash moves set to trash and notes the new UIDs COPYUID names.
func moveToTrash(cn *conn, set goimap.UIDSet, trash string, out *Deletion) error {
	var src, dst goimap.NumSet
	if cn.caps.Has(goimap.CapMove) {
		md, err := cn.ic.Move(set, canonicalFolder(trash)).Wait()
		if err != nil {
			return fmt.Errorf("uid move: %w", err)
		}
		src, dst = md.SourceUIDs, md.DestUIDs
	} else {
		cd, err := cn.ic.Copy(set, canonicalFolder(trash)).Wait()
		if err != nil {
			return fmt.Errorf("uid copy: %w", err)
		}
		src, dst = cd.SourceUIDs, cd.DestUIDs
		if err := removeOriginal(cn, set); err != nil {
			return fmt.Errorf("copied, but removing the originals failed (they are in both folders; deleting them again finishes the job): %w", err)
		}
	}
	for _, u := range out.Deleted {
		if n := destUID(src, dst, u); n != 0 {
			out.NewUIDs[u] = n
		}
	}
	return nil
}

// subjects fetches the Subject of each message of set.
func subjects(cn *conn, set goimap.UIDSet) (map[uint32]string, error) {
	msgs, err := cn.ic.Fetch(set, &goimap.FetchOptions{UID: true, Envelope: true}).Collect()
	if err != nil {
		return nil, fmt.Errorf("uid fetch envelope: %w", err)
	}
	out := make(map[uint32]string, len(msgs))
	for _, m := range msgs {
		if m.UID != 0 && m.Envelope != nil {
			out[uint32(m.UID)] = m.Envelope.Subject
		}
	}
	return out, nil
}
