package imap

import (
	"context"
	"errors"
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
)

// CreateFolder creates folder (and, on servers that need it, its parents);
// a folder that already exists is not an error, so callers can ensure a
// folder before using it.
//
// A connection lost during the CREATE is tried again (twice at most) on a fresh one:
// Dovecot 2.3 (seen with 2.3.19, Maildir) panics an imap process that
// CREATEs a folder while another session creates the same one ("fcntl(...
// dovecot.list.index.log, write-lock, F_SETLKW) locking failed: Resource
// deadlock avoided"), as replicas making their shared folder at once do;
// the second try finds the folder there.
func (c *Client) CreateFolder(ctx context.Context, folder string) error {
	err := c.createFolder(ctx, folder)
	for try := 0; try < 2 && errors.Is(err, ErrConnection) && ctx.Err() == nil; try++ {
		err = c.createFolder(ctx, folder)
	}
	return err
}

func (c *Client) createFolder(ctx context.Context, folder string) error {
	op := fmt.Sprintf("create %q", folder)
	if err := checkFolder(folder); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, func(cn *conn) error {
		err := cn.ic.Create(canonicalFolder(folder), nil).Wait()
		var ie *goimap.Error
		if err == nil || (errors.As(err, &ie) && ie.Code == goimap.ResponseCodeAlreadyExists) {
			return nil
		}
		// Servers without the ALREADYEXISTS code: look it up.
		l, lerr := cn.ic.List("", canonicalFolder(folder), nil).Collect()
		if lerr == nil && len(l) > 0 {
			return nil
		}
		return err
	})
}
