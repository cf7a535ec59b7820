package imap

import (
	"context"
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
)

// RenameFolder renames folder from to to (IMAP RENAME; its subfolders
// follow). A missing from is ErrFolderNotFound. Names are UTF-8: imapclient
// sends them in modified UTF-7 (or as UTF-8 where UTF8=ACCEPT is enabled).
// The caller decides which folders may be renamed: a server renames INBOX
// by moving its messages to a new folder.
func (c *Client) RenameFolder(ctx context.Context, from, to string) error {
	op := fmt.Sprintf("rename %q to %q", from, to)
	err := checkFolder(from)
	if err == nil {
		err = checkFolder(to)
	}
	if err == nil && canonicalFolder(from) == canonicalFolder(to) {
		err = fmt.Errorf("the same name twice: %w", ErrInvalid)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, func(cn *conn) error {
		cn.dropSelection()
		return cn.ic.Rename(canonicalFolder(from), canonicalFolder(to), nil).Wait()
	})
}

// DeleteFolder deletes folder and every message in it (IMAP DELETE). A
// missing folder is ErrFolderNotFound. The caller checks what may go (INBOX,
// special-use folders, a folder that is not empty).
func (c *Client) DeleteFolder(ctx context.Context, folder string) error {
	op := fmt.Sprintf("delete folder %q", folder)
	if err := checkFolder(folder); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, func(cn *conn) error {
		cn.dropSelection()
		return cn.ic.Delete(canonicalFolder(folder)).Wait()
	})
}

// dropSelection leaves whatever folder is selected before a RENAME or
// DELETE (of it, or of a parent): Dovecot ends a session whose selected
// folder is deleted ("BYE Selected mailbox was deleted"), and a kept
// selection would name a folder that moved. UNSELECT where the server has
// it (never CLOSE, which expunges); the next operation selects afresh.
func (cn *conn) dropSelection() {
	if cn.sel == nil {
		return
	}
	if cn.caps.Has(goimap.CapUnselect) {
		_ = cn.ic.Unselect().Wait() // a failure leaves the server's selection; ours is dropped anyway
	}
	cn.sel, cn.reused = nil, false
}
