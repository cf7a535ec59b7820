package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// Mailbox is the IMAP side the mail tools use (imap.Client).
type Mailbox interface {
	ListFolders(ctx context.Context, counts bool) ([]imap.Folder, error)
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
	FetchMessage(ctx context.Context, folder string, uid uint32, prefixBytes int64) (*imap.Message, error)
	ReadMessage(ctx context.Context, folder string, uid uint32, o imap.ReadOptions) (*imap.Display, error)
	Bodies(ctx context.Context, folder string, m *imap.Message, maxPartBytes int64) (message.Bodies, bool, error)
	StreamPart(ctx context.Context, folder string, uid uint32, path []int, w io.Writer) (int64, error)
	SetFlags(ctx context.Context, folder string, uids []uint32, ch imap.FlagChange) (map[uint32][]string, error)
	Move(ctx context.Context, from string, uid uint32, to string) (uint32, error)
	UIDValidity(ctx context.Context, folder string) (uint32, error)
}

var _ Mailbox = (*imap.Client)(nil)

// maxFolderArg is the longest folder argument, in bytes.
const maxFolderArg = imap.MaxFolderName

// checkFolder validates a folder argument; "" becomes INBOX.
func checkFolder(arg, name string) (string, error) {
	if arg == "" {
		return "INBOX", nil
	}
	if len(arg) > maxFolderArg || strings.ContainsAny(arg, "\x00\r\n") {
		return "", mcpkit.InvalidArg("%s must be a folder name as list_folders returns it", name)
	}
	return arg, nil
}

// folderError names the folder in FOLDER_NOT_FOUND and explains a changed
// UIDVALIDITY; other errors go to Classify.
func folderError(err error, folder string) error {
	switch {
	case errors.Is(err, imap.ErrFolderNotFound):
		return &mcpkit.Error{Code: mcpkit.CodeFolderNotFound, Message: fmt.Sprintf("folder %q does not exist (list_folders shows the names)", folder), Cause: err}
	case errors.Is(err, imap.ErrUIDValidityChanged):
		return &mcpkit.Error{Code: mcpkit.CodeMessageNotFound, Message: fmt.Sprintf("this id is not of folder %q as it is now (its UIDVALIDITY differs: the folder was recreated since the id was issued, or the id is of another folder): search again", folder), Cause: err}
	case errors.Is(err, imap.ErrSearchCharset):
		return &mcpkit.Error{Code: mcpkit.CodeInvalidArgument, Message: "the server cannot search for non-ASCII text", Cause: err}
	}
	return err
}

// checkValidity refuses an id whose UIDVALIDITY is not the folder's.
func checkValidity(ref UID, current uint32, folder string) error {
	if ref.Validity != 0 && ref.Validity != current {
		return folderError(imap.ErrUIDValidityChanged, folder)
	}
	return nil
}

// clean removes invisible and bidi control characters from untrusted text.
func clean(s string) string {
	c, _ := message.CleanText(s)
	return c
}

// parseDateArg accepts YYYY-MM-DD or RFC 3339; "" is the zero time.
func parseDateArg(s, name string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, mcpkit.InvalidArg("%s must be a date as YYYY-MM-DD or RFC 3339 (got %q)", name, message.Truncate(s, 40))
}
