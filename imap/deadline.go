package imap

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/email-mcp/email-mcp/internal/clampconn"
)

// Every connection sits on a clampconn.Conn: imapclient sets its own read
// and write deadlines all the time (30 s per response, none while waiting
// between responses), which would overwrite a deadline set from outside;
// the Conn's limit stays on top of them.

// bridge runs fn, which blocks on I/O over dc, under ctx and a deadline of
// timeout: when either ends, dc's limit moves to now, which makes fn return.
// It reports whether the connection is spoiled (ctx or the deadline fired
// while fn ran: the exchange was cut off, so the connection must be closed).
// A cut-off fn's error is wrapped with the context's error, so
// context.DeadlineExceeded (and os.ErrDeadlineExceeded) or context.Canceled
// is in the chain: imapclient formats its I/O errors with %v and loses them.
func bridge(ctx context.Context, dc *clampconn.Conn, timeout time.Duration, fn func() error) (spoiled bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if ctx.Err() != nil { // do not start what cannot finish
		return false, ctx.Err()
	}
	stop := context.AfterFunc(ctx, func() { dc.SetLimit(time.Now()) })
	err = fn()
	if stop() {
		return false, err
	}
	if err == nil { // the answer came in as the deadline passed: keep it
		return true, nil
	}
	return true, cutOff(ctx.Err(), err)
}

// cutOff wraps the error of an exchange that ctxErr interrupted.
func cutOff(ctxErr, err error) error {
	if ctxErr == context.DeadlineExceeded {
		return fmt.Errorf("%w (%w): %w", ctxErr, os.ErrDeadlineExceeded, err)
	}
	return fmt.Errorf("%w: %w", ctxErr, err)
}
