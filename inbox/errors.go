package inbox

import (
	"errors"
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// Kind is what went wrong, for a caller to map onto its stable codes.
type Kind int

// The kinds of Error.
const (
	// Invalid: an argument is not valid; Msg says which and why.
	Invalid Kind = iota + 1
	// NotFound: a well-formed inbox id that names no test inbox of this
	// account: never created, or deleted.
	NotFound
	// Timeout: a wait ended with nothing matching (its timeout, or the
	// server shutting down); NextSince continues after what it looked at.
	Timeout
	// RateLimited: send_test_code's hourly limit; RetryAfter says when.
	RateLimited
	// FolderMissing: a folder the operation needs (Trash) does not exist.
	FolderMissing
	// Unsupported: the server lacks what the operation needs.
	Unsupported
)

// Error is a failure of the inbox domain, with a message that is safe to
// show and names no host, credential or server text. Cause is for the log.
type Error struct {
	Kind Kind
	Msg  string
	// NextSince is the since that continues a timed-out wait (Timeout).
	NextSince string
	// RetryAfter is how long until a rate-limited call may run (RateLimited).
	RetryAfter time.Duration
	Cause      error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %v", e.Msg, e.Cause)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Cause }

// FolderError is an imap error met in a folder the caller may need to
// name (imap.ErrFolderNotFound, imap.ErrUIDValidityChanged, ...).
type FolderError = imap.FolderError

// inFolder wraps err with its folder; nil stays nil.
func inFolder(err error, folder string) error { return imap.InFolder(err, folder) }

func invalid(format string, args ...any) *Error {
	return &Error{Kind: Invalid, Msg: fmt.Sprintf(format, args...)}
}

// notFound is the error for a well-formed inbox id that names no inbox.
func notFound(id string) *Error {
	return &Error{Kind: NotFound, Msg: fmt.Sprintf("there is no test inbox %q (never created, or deleted): create one with create_inbox; list_inboxes lists them", message.Truncate(id, 80))}
}

// isMissing reports a folder that does not exist.
func isMissing(err error) bool { return errors.Is(err, imap.ErrFolderNotFound) }
