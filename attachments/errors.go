package attachments

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrNotConfigured means Options.BaseDir (EMAIL_BASE_DIR) is empty.
	ErrNotConfigured = errors.New("attachment workspace not configured (EMAIL_BASE_DIR is empty)")
	// ErrOutsideWorkspace means a path names something outside uploads/ and
	// downloads/, a hidden file, a hard link or a symlink that points out.
	ErrOutsideWorkspace = errors.New("path is outside the attachment workspace")
	// ErrInvalidPath means a path is empty, too long or holds characters no
	// workspace path may hold.
	ErrInvalidPath = errors.New("invalid path")
	// ErrNotFound means the path is allowed but no such file exists.
	ErrNotFound = errors.New("file not found")
	// ErrTooLarge means a file is larger than Options.MaxFileSize.
	ErrTooLarge = errors.New("file too large")
	// ErrNotRegularFile means the path names a directory, FIFO, socket or device.
	ErrNotRegularFile = errors.New("not a regular file")
	// ErrNameTaken means Commit found every candidate name already in use.
	ErrNameTaken = errors.New("no free file name")
	// ErrClosed means a Download was already committed, aborted or failed.
	ErrClosed = errors.New("download already finished")
)

// errPathEscapes is the text of os.Root's unexported refusal error.
const errPathEscapes = "path escapes from parent"

// fsError turns an error from the file system into one of the sentinels,
// keeping the cause wrapped.
func fsError(op, path string, err error) error {
	var kind error
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		kind = ErrNotFound
	case errors.Is(err, syscall.ELOOP), isEscape(err):
		kind = ErrOutsideWorkspace
	case errors.Is(err, syscall.ENAMETOOLONG):
		kind = ErrInvalidPath
	default:
		return fmt.Errorf("%s %q: %w", op, path, err)
	}
	return fmt.Errorf("%s %q: %w: %w", op, path, kind, err)
}

// isEscape reports whether err is os.Root's "path escapes from parent".
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == errPathEscapes {
			return true
		}
	}
	return false
}
