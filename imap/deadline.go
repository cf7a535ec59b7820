package imap

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// deadlineConn is the net.Conn that imapclient reads and writes. imapclient
// sets its own read and write deadlines all the time (30 s per response, none
// while waiting between responses), which would overwrite a deadline set from
// outside. deadlineConn keeps a limit on top: every deadline imapclient asks
// for is clamped to it, so once the limit is in the past every blocked or
// later Read and Write fails at once and imapclient's Wait returns.
type deadlineConn struct {
	net.Conn

	mu          sync.Mutex
	limit       time.Time // zero: no limit
	read, write time.Time // what imapclient asked for
}

// SetDeadline implements net.Conn.
func (d *deadlineConn) SetDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read, d.write = t, t
	return d.applyLocked()
}

// SetReadDeadline implements net.Conn. imapclient calls it before every
// response it reads: only the read side is touched (each change re-arms a
// runtime timer).
func (d *deadlineConn) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read = t
	return d.Conn.SetReadDeadline(earliest(d.read, d.limit))
}

// SetWriteDeadline implements net.Conn; only the write side is touched.
func (d *deadlineConn) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.write = t
	return d.Conn.SetWriteDeadline(earliest(d.write, d.limit))
}

// setLimit sets the limit; the zero time removes it.
func (d *deadlineConn) setLimit(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.limit = t
	_ = d.applyLocked() // fails only on a closed conn, which fails anyway
}

func (d *deadlineConn) applyLocked() error {
	if err := d.Conn.SetReadDeadline(earliest(d.read, d.limit)); err != nil {
		return err
	}
	return d.Conn.SetWriteDeadline(earliest(d.write, d.limit))
}

// earliest returns the earlier of two deadlines, the zero time meaning none.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	default:
		return b
	}
}

// bridge runs fn, which blocks on I/O over dc, under ctx and a deadline of
// timeout: when either ends, dc's limit moves to now, which makes fn return.
// It reports whether the connection is spoiled (ctx or the deadline fired
// while fn ran: the exchange was cut off, so the connection must be closed).
// A cut-off fn's error is wrapped with the context's error, so
// context.DeadlineExceeded (and os.ErrDeadlineExceeded) or context.Canceled
// is in the chain: imapclient formats its I/O errors with %v and loses them.
func bridge(ctx context.Context, dc *deadlineConn, timeout time.Duration, fn func() error) (spoiled bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if ctx.Err() != nil { // do not start what cannot finish
		return false, ctx.Err()
	}
	stop := context.AfterFunc(ctx, func() { dc.setLimit(time.Now()) })
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
