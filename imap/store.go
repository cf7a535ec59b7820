package imap

import (
	"context"
	"fmt"
	"slices"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// FlagChange says which flags to set (true) or clear (false); nil leaves
// a flag alone.
type FlagChange struct {
	Seen, Flagged, Answered *bool
}

// ops splits the change into the flags to add and those to remove.
func (ch FlagChange) ops() (add, del []goimap.Flag) {
	for _, f := range []struct {
		v    *bool
		flag goimap.Flag
	}{{ch.Seen, goimap.FlagSeen}, {ch.Flagged, goimap.FlagFlagged}, {ch.Answered, goimap.FlagAnswered}} {
		switch {
		case f.v == nil:
		case *f.v:
			add = append(add, f.flag)
		default:
			del = append(del, f.flag)
		}
	}
	return add, del
}

// SetFlags changes flags of the messages uids in folder and returns the
// flags each has afterwards.
//
// It SELECTs the folder (read-write), checks that every UID exists (one
// UID SEARCH UID ...): if some do not, nothing is changed and the error is
// a *MissingUIDsError naming them (errors.Is ErrMessageNotFound). Then one
// UID STORE +FLAGS and/or one UID STORE -FLAGS, the last one not silent so
// that its answer carries the resulting flags. A change that sets nothing,
// no UID, or UID 0 is the caller's mistake: ErrInvalid, before any I/O.
func (c *Client) SetFlags(ctx context.Context, folder string, uids []uint32, ch FlagChange) (map[uint32][]string, error) {
	op := fmt.Sprintf("set flags in %q", folder)
	add, del := ch.ops()
	err := checkFolder(folder)
	if err == nil {
		err = checkUIDList(uids, 0)
	}
	if err == nil && len(add)+len(del) == 0 {
		err = fmt.Errorf("no flag to change: %w", ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c.store(ctx, op, folder, uids, add, del, true)
}

// store changes the flags of uids of folder after a read-write SELECT,
// all of them present first when check is set (checkUIDs), and returns
// the flags each has afterwards.
func (c *Client) store(ctx context.Context, op, folder string, uids []uint32, add, del []goimap.Flag, check bool) (map[uint32][]string, error) {
	var flags map[uint32][]string
	err := c.do(ctx, op, func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, true); err != nil {
			return err
		}
		if check {
			if err := checkUIDs(cn, folder, uids); err != nil {
				return err
			}
		}
		var err error
		flags, err = storeFlags(cn, uidSet(uids), add, del)
		return err
	})
	if err != nil {
		return nil, err
	}
	return flags, nil
}

// checkUIDs returns a *MissingUIDsError unless every uid is in the
// selected folder.
func checkUIDs(cn *conn, folder string, uids []uint32) error {
	found, err := searchUIDs(cn, &goimap.SearchCriteria{UID: []goimap.UIDSet{uidSet(uids)}})
	if err != nil {
		return err
	}
	var missing []uint32
	for _, u := range uids {
		if !slices.Contains(found, u) && !slices.Contains(missing, u) {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return &MissingUIDsError{Folder: canonicalFolder(folder), UIDs: missing}
	}
	return nil
}

// storeFlags sends the STOREs and reads the resulting flags from the last
// one's own answer: a STORE without .SILENT returns each message's new
// FLAGS (RFC 3501 6.4.6). An earlier version pipelined a UID FETCH FLAGS
// behind silent STOREs; against Dovecot, go-imap filed the FETCH answers
// for several UIDs under the pending STORE and the FETCH came back empty.
func storeFlags(cn *conn, set goimap.UIDSet, add, del []goimap.Flag) (map[uint32][]string, error) {
	ops := []*goimap.StoreFlags{}
	if len(add) > 0 {
		ops = append(ops, &goimap.StoreFlags{Op: goimap.StoreFlagsAdd, Silent: true, Flags: add})
	}
	if len(del) > 0 {
		ops = append(ops, &goimap.StoreFlags{Op: goimap.StoreFlagsDel, Silent: true, Flags: del})
	}
	ops[len(ops)-1].Silent = false
	var bufs []*imapclient.FetchMessageBuffer
	for i, op := range ops {
		cmd := cn.ic.Store(set, op, nil)
		if i < len(ops)-1 {
			if err := cmd.Close(); err != nil {
				return nil, fmt.Errorf("uid store: %w", err)
			}
			continue
		}
		var err error
		if bufs, err = cmd.Collect(); err != nil {
			return nil, fmt.Errorf("uid store: %w", err)
		}
	}
	flags := make(map[uint32][]string, len(bufs))
	for _, b := range bufs {
		if b.UID != 0 {
			flags[uint32(b.UID)] = flagStrings(b.Flags)
		}
	}
	return flags, nil
}
