package imap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	goimap "github.com/emersion/go-imap/v2"
)

// Append stores a message of size bytes read from r in folder, with flags
// (e.g. `\Seen`) and date as INTERNALDATE (zero: the server's now), and
// returns its UID from APPENDUID, or 0 when the server has no UIDPLUS.
//
// The deadline is CommandTimeout plus size at 256 KiB/s, like StreamPart.
// A missing folder is ErrFolderNotFound (NO [TRYCREATE]). When r fails or
// ends before size bytes, the command cannot be finished in step with the
// server: the connection is closed and the error is r's (ErrInvalid for a
// short reader).
func (c *Client) Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error) {
	op := fmt.Sprintf("append to %q", folder)
	err := checkFolder(folder)
	if err == nil && size <= 0 {
		err = fmt.Errorf("message size %d: %w", size, ErrInvalid)
	}
	var opts goimap.AppendOptions
	opts.Time = date
	for _, f := range flags {
		if err == nil && !validFlag(f) {
			err = fmt.Errorf("flag %q: %w", f, ErrInvalid)
		}
		opts.Flags = append(opts.Flags, goimap.Flag(f))
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var uid uint32
	err = c.doTimeout(ctx, op, c.transferTimeout(size), func(cn *conn) error {
		var err error
		uid, err = appendMessage(cn, canonicalFolder(folder), &opts, size, r)
		return err
	})
	return uid, err
}

// appendMessage sends APPEND with a literal of size bytes from r.
func appendMessage(cn *conn, folder string, opts *goimap.AppendOptions, size int64, r io.Reader) (uint32, error) {
	src := &sourceReader{r: r}
	cmd := cn.ic.Append(folder, size, opts)
	_, copyErr := io.CopyN(cmd, src, size)
	if copyErr != nil && (src.err != nil || errors.Is(copyErr, io.EOF)) {
		// The literal is incomplete: the server still waits for its bytes.
		cn.cut()
		_ = cmd.Close()
		_, _ = cmd.Wait()
		if src.err == nil {
			return 0, fmt.Errorf("message shorter than its size %d: %w", size, ErrInvalid)
		}
		return 0, &localError{fmt.Errorf("reading the message: %w", src.err)}
	}
	closeErr := cmd.Close() // ends the command; also after a refused literal
	data, err := cmd.Wait()
	if err != nil { // a NO instead of the continuation lands here too
		return 0, fmt.Errorf("append: %w", err)
	}
	if err := errors.Join(copyErr, closeErr); err != nil {
		return 0, fmt.Errorf("append: %w", err)
	}
	return uint32(data.UID), nil
}

// sourceReader remembers the error of the reader it wraps (io.EOF
// excluded), to tell it from a write error in io.CopyN.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// validFlag accepts a system flag or a keyword: atom characters after an
// optional backslash.
func validFlag(f string) bool {
	f = strings.TrimPrefix(f, `\`)
	if f == "" {
		return false
	}
	for _, r := range f {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`(){%*"\]`, r) {
			return false
		}
	}
	return true
}
