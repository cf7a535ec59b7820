// Package clampconn is the net.Conn that go-imap and go-smtp read and
// write. Both libraries set their own read and write deadlines all the time
// (per command or per response), which would overwrite a deadline set from
// outside. A Conn keeps a bound on top: every deadline a library asks for
// is clamped to a limit of the Conn's own and, once bound to a context, to
// the context's deadline; when the limit is in the past or the context has
// ended, every blocked and later Read and Write fails at once, so the
// library's call returns.
//
//	c := clampconn.New(nc)
//	stop := c.Bind(ctx)        // optional: ctx's end cuts the connection
//	c.SetLimit(time.Now().Add(30 * time.Second))
package clampconn

import (
	"context"
	"net"
	"sync"
	"time"
)

// past is a deadline that has already passed.
var past = time.Unix(1, 0)

// Conn clamps the deadlines of the net.Conn it wraps. Its methods are safe
// for concurrent use; the mutex orders the library's deadline calls against
// SetLimit and a context's end, so a cut is never lost.
type Conn struct {
	net.Conn

	mu          sync.Mutex
	ctx         context.Context // nil until Bind
	limit       time.Time       // zero: none
	read, write time.Time       // what the library asked for
}

// New wraps nc with no limit.
func New(nc net.Conn) *Conn { return &Conn{Conn: nc} }

// Bind makes ctx's deadline a bound too, and ctx's end cut every Read and
// Write. stop undoes the second (see context.AfterFunc): false means the cut
// already happened.
func (c *Conn) Bind(ctx context.Context) (stop func() bool) {
	c.mu.Lock()
	c.ctx = ctx
	_ = c.applyLocked()
	c.mu.Unlock()
	return context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		_ = c.applyLocked()
	})
}

// SetLimit bounds every deadline by limit; the zero time removes the bound.
// A limit in the past cuts blocked and later I/O at once.
func (c *Conn) SetLimit(limit time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = limit
	_ = c.applyLocked() // fails only on a closed conn, which fails anyway
}

// SetDeadline implements net.Conn.
func (c *Conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read, c.write = t, t
	return c.applyLocked()
}

// SetReadDeadline implements net.Conn. go-imap calls it before every
// response it reads: only the read side is touched (each change re-arms a
// runtime timer).
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = t
	return c.Conn.SetReadDeadline(c.clampLocked(c.read))
}

// SetWriteDeadline implements net.Conn; only the write side is touched.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.write = t
	return c.Conn.SetWriteDeadline(c.clampLocked(c.write))
}

func (c *Conn) applyLocked() error {
	if err := c.Conn.SetReadDeadline(c.clampLocked(c.read)); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(c.clampLocked(c.write))
}

// clampLocked bounds t by the context and the limit.
func (c *Conn) clampLocked(t time.Time) time.Time {
	if c.ctx != nil {
		if c.ctx.Err() != nil {
			return past
		}
		if d, ok := c.ctx.Deadline(); ok {
			t = Earliest(t, d)
		}
	}
	return Earliest(t, c.limit)
}

// Earliest returns the earlier of two deadlines, the zero time meaning none.
func Earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	default:
		return b
	}
}
