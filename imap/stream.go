package imap

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// streamMinRate is the slowest transfer StreamPart and Append allow, in
// bytes per second: their deadline is CommandTimeout plus the size at this
// rate (a 50 MB attachment gets 30 s + 200 s), so a large part on a slow
// link finishes while a stalled server still ends in bounded time. ctx can
// always end it sooner.
const streamMinRate = 256 << 10

// transferTimeout is the deadline of a transfer of size bytes.
func (c *Client) transferTimeout(size int64) time.Duration {
	return c.opts.CommandTimeout + time.Duration(size/streamMinRate)*time.Second
}

// StreamPart copies one body part (BODY.PEEK[path], still
// transfer-encoded, without its MIME header) into w as it arrives, in
// chunks of at most 32 KiB: the part is never held in memory whole. It
// returns the number of bytes written.
//
// It takes two exchanges: a UID FETCH of the BODYSTRUCTURE, for the part's
// size (ErrMessageNotFound, ErrPartNotFound), then the transfer under a
// deadline of CommandTimeout plus the size at 256 KiB/s (see
// streamMinRate). An error from w ends the transfer and is returned as is
// (no kind); the connection is then closed rather than drained.
func (c *Client) StreamPart(ctx context.Context, folder string, uid uint32, path []int, w io.Writer) (int64, error) {
	op := fmt.Sprintf("stream part %v of message %d in %q", path, uid, folder)
	err := checkTarget(folder, uid)
	if err == nil {
		err = checkPath(path)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	size, err := c.partSize(ctx, op, folder, uid, path)
	if err != nil {
		return 0, err
	}
	return c.streamSized(ctx, op, folder, uid, path, size, w)
}

// streamSized copies section path of message uid (nil: the whole message)
// into w under the deadline of a transfer of size bytes.
func (c *Client) streamSized(ctx context.Context, op, folder string, uid uint32, path []int, size int64, w io.Writer) (int64, error) {
	var n int64
	err := c.doTimeout(ctx, op, c.transferTimeout(size), func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, false); err != nil {
			return err
		}
		var err error
		n, err = streamSection(cn, uid, path, w)
		return err
	})
	return n, err
}

// partSize returns the encoded size of the part at path from the
// BODYSTRUCTURE (0 for a multipart, whose size IMAP does not give).
func (c *Client) partSize(ctx context.Context, op, folder string, uid uint32, path []int) (int64, error) {
	var size int64
	err := c.do(ctx, op, func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, false); err != nil {
			return err
		}
		b, err := fetchOne(cn, uid, &goimap.FetchOptions{UID: true, BodyStructure: &goimap.FetchItemBodyStructure{Extended: true}})
		if err != nil {
			return err
		}
		var p *Part
		if b.BodyStructure != nil {
			p = structureOf(b.BodyStructure, nil).Find(path)
		}
		if p == nil {
			return fmt.Errorf("no part %v in message %d: %w", path, uid, ErrPartNotFound)
		}
		size = p.Size
		return nil
	})
	return size, err
}

// streamSection runs UID FETCH uid (BODY.PEEK[path]) and copies the
// section's literal into w. Every response is consumed; when w fails, the
// connection is cut first so that the rest of the literal is not read; when
// reading the literal fails, the connection is abandoned (see collect).
func streamSection(cn *conn, uid uint32, path []int, w io.Writer) (int64, error) {
	section := &goimap.FetchItemBodySection{Peek: true, Part: slices.Clone(path)}
	cmd := cn.ic.Fetch(goimap.UIDSetNum(goimap.UID(uid)), &goimap.FetchOptions{
		UID: true, BodySection: []*goimap.FetchItemBodySection{section},
	})
	var (
		n     int64
		found bool
		isNil bool // the server answered NIL: no such section (RFC 2180 4.1.3: expunged elsewhere)
		sink  = &sinkWriter{w: w}
		err   error
	)
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		for item := msg.Next(); item != nil; item = msg.Next() {
			bs, ok := item.(imapclient.FetchItemDataBodySection)
			if !ok || found || !bs.MatchCommand(section) {
				continue
			}
			found = true
			isNil = bs.Literal == nil
			if bs.Literal != nil {
				n, err = io.Copy(sink, bs.Literal)
				if sink.err == nil && err == nil {
					err = shortLiteral(bs.Literal.Size(), n)
				}
				if sink.err == nil && err != nil {
					cn.abandon() // the literal must not be read again: see collect
					return n, err
				}
			}
			if sink.err != nil {
				cn.cut() // do not read megabytes only to drop them
			}
		}
	}
	closeErr := cmd.Close()
	switch {
	case sink.err != nil:
		return n, &localError{fmt.Errorf("writing part: %w", sink.err)}
	case err != nil:
		return n, err
	case closeErr != nil:
		return n, fmt.Errorf("uid fetch: %w", closeErr)
	case !found:
		return 0, fmt.Errorf("uid %d: %w", uid, ErrMessageNotFound)
	case isNil:
		// Not an empty part (that is a literal of 0 bytes): the server has
		// no such section, typically because another session expunged the
		// message. An empty file must not pass for the attachment.
		return 0, fmt.Errorf("uid %d: the server answered NIL for part %v: %w", uid, path, ErrMessageNotFound)
	}
	return n, nil
}

// sinkWriter remembers the error of the writer it wraps, to tell it from a
// read error in io.Copy.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}
