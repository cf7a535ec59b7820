package imap

import (
	"context"
	"fmt"
	"slices"
	"strings"

	goimap "github.com/emersion/go-imap/v2"
)

// selection is the folder a connection has selected, as its SELECT or
// EXAMINE answer described it.
//
// A connection keeps its selection between operations, so that a second
// operation on the same folder sends no SELECT. A server brings a selected
// session up to date only when it chooses to, though: Dovecot runs a UID
// SEARCH or UID FETCH on the session's view as of its last full sync, so a
// message delivered since is neither found nor fetched (UID FETCH answers
// OK with nothing), and a NOOP pipelined in front does not help (Dovecot
// defers the sync while commands are queued). Dovecot does sync at the end
// of each command, though, and reports what changed (EXISTS, EXPUNGE)
// before the tagged answer. So a search on a reused selection runs at once
// and runs again when its own answer reported a change (conn.changes): the
// second one sees the view the first brought up to date. Flag changes come
// as unsolicited FETCH responses, which imapclient delivers on goroutines of
// their own (too late to count), so a search by flags (unread, flagged) on
// a reused selection waits for a NOOP first. An operation that
// finds no message on a reused selection syncs with a NOOP and tries once
// more (Client.doTimeout). Reads of known mail and searches of a folder
// that did not change pay nothing. Nothing below
// relies on the counts of the SELECT answer once they may be stale. UIDVALIDITY cannot change under a
// selection: a server whose selected folder is deleted or recreated ends
// the session (Dovecot: "BYE Selected mailbox was deleted"), the
// connection is then dropped with its selection and the next one selects
// afresh.
type selection struct {
	name        string
	readOnly    bool   // EXAMINE: good for reads only
	uidValidity uint32 // UIDVALIDITY
	messages    uint32 // EXISTS when selected
	uidNext     uint32 // UIDNEXT when selected (0 if the server sent none)
}

// canonicalFolder spells INBOX, which is case-insensitive, one way.
func canonicalFolder(name string) string {
	if strings.EqualFold(name, "INBOX") {
		return "INBOX"
	}
	return name
}

// checkFolder refuses a name no server accepts.
func checkFolder(name string) error {
	if name == "" || strings.ContainsAny(name, "\x00\r\n") {
		return fmt.Errorf("folder name %q: %w", name, ErrInvalid)
	}
	return nil
}

// checkUIDList refuses a UID list no command should carry: none, more than
// max (0: no bound) or a UID 0.
func checkUIDList(uids []uint32, max int) error {
	switch {
	case len(uids) == 0:
		return fmt.Errorf("no UID: %w", ErrInvalid)
	case max > 0 && len(uids) > max:
		return fmt.Errorf("more than %d UIDs: %w", max, ErrInvalid)
	case slices.Contains(uids, 0):
		return fmt.Errorf("UID 0: %w", ErrInvalid)
	}
	return nil
}

// cached returns the connection's selection of name, or nil.
func (cn *conn) cached(name string) *selection {
	if s := cn.sel; s != nil && s.name == canonicalFolder(name) {
		return s
	}
	return nil
}

// selectFolder makes name the selected folder: EXAMINE (read-only) for
// reads, SELECT when write is set. It reuses the current selection when it
// is the same folder with enough rights; fresh reports whether a command
// was sent. A missing folder is a NO [NONEXISTENT] (ErrFolderNotFound once
// translated), which leaves the connection usable with no folder selected.
func (cn *conn) selectFolder(name string, write bool) (sel selection, fresh bool, err error) {
	name = canonicalFolder(name)
	if s := cn.cached(name); s != nil && (!write || !s.readOnly) {
		cn.reused = true
		return *s, false, nil
	}
	cn.sel, cn.reused = nil, false // a failed SELECT leaves no folder selected (RFC 3501 §6.3.1)
	data, err := cn.ic.Select(name, &goimap.SelectOptions{ReadOnly: !write}).Wait()
	if err != nil {
		return selection{}, true, fmt.Errorf("select %q: %w", name, err)
	}
	s := &selection{name: name, readOnly: !write, uidValidity: data.UIDValidity,
		messages: data.NumMessages, uidNext: uint32(data.UIDNext)}
	cn.sel = s
	return *s, true, nil
}

// selectCurrent is selectFolder, with a NOOP when the selection was kept,
// so that the view shows what other sessions changed (see selection): for
// the operations that must see every message, not only searches.
func (cn *conn) selectCurrent(name string, write bool) (selection, error) {
	sel, fresh, err := cn.selectFolder(name, write)
	if err == nil && !fresh {
		err = cn.sync()
	}
	return sel, err
}

// sync brings the selected folder's view up to date (a waited NOOP).
func (cn *conn) sync() error {
	if err := cn.ic.Noop().Wait(); err != nil {
		return fmt.Errorf("noop: %w", err)
	}
	return nil
}

// UIDValidity returns the folder's UIDVALIDITY: from the connection's
// selection when it has the folder selected, else with one STATUS (which
// selects nothing).
func (c *Client) UIDValidity(ctx context.Context, folder string) (uint32, error) {
	if err := checkFolder(folder); err != nil {
		return 0, fmt.Errorf("uidvalidity: %w", err)
	}
	var v uint32
	err := c.do(ctx, fmt.Sprintf("uidvalidity of %q", folder), func(cn *conn) error {
		if s := cn.cached(folder); s != nil {
			v = s.uidValidity
			return nil
		}
		sd, err := cn.ic.Status(canonicalFolder(folder), &goimap.StatusOptions{UIDValidity: true}).Wait()
		if err != nil {
			return err
		}
		v = sd.UIDValidity
		return nil
	})
	return v, err
}

// UIDNext returns the folder's UIDVALIDITY and UIDNEXT through the pool:
// every message that arrives later has a UID of at least uidNext (in that
// UIDVALIDITY). It pins "now" for a wait: subscribe with afterUID
// uidNext-1 and compare the subscription's UIDValidity.
//
// It sends one STATUS, or, on a connection that has the folder selected,
// selects it again and reads the fresh answer's UIDNEXT: Dovecot answers a
// STATUS of the selected folder from the session's view as of its last
// sync, whose UIDNEXT is stale once mail arrived through another session
// (a wait without since then returned mail older than the call).
func (c *Client) UIDNext(ctx context.Context, folder string) (uidValidity, uidNext uint32, err error) {
	op := fmt.Sprintf("uidnext of %q", folder)
	if err := checkFolder(folder); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	err = c.do(ctx, op, func(cn *conn) error {
		if s := cn.cached(folder); s != nil {
			uidValidity, uidNext, err = cn.reselect(folder, !s.readOnly)
			return err
		}
		sd, err := cn.ic.Status(canonicalFolder(folder), &goimap.StatusOptions{UIDValidity: true, UIDNext: true}).Wait()
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		if sd.UIDNext == 0 || sd.UIDValidity == 0 {
			return fmt.Errorf("status: %w: no UIDNEXT or UIDVALIDITY in the answer", ErrProtocol)
		}
		uidValidity, uidNext = sd.UIDValidity, uint32(sd.UIDNext)
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return uidValidity, uidNext, nil
}

// reselect selects the folder the connection has selected once more (in
// the same mode) and returns the fresh answer's UIDVALIDITY and UIDNEXT.
func (cn *conn) reselect(folder string, write bool) (uidValidity, uidNext uint32, err error) {
	cn.sel = nil
	sel, _, err := cn.selectFolder(folder, write)
	if err != nil {
		return 0, 0, err
	}
	if sel.uidNext == 0 { // a server that sends no UIDNEXT
		if sel.uidNext, err = uidNextBySearch(cn); err != nil {
			return 0, 0, err
		}
	}
	return sel.uidValidity, sel.uidNext, nil
}
