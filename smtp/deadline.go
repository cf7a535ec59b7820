package smtp

import (
	"bytes"
	"context"
	"net"
	"sync"
	"time"
)

// past is a deadline that has already passed.
var past = time.Unix(1, 0)

// deadlineConn is the net.Conn go-smtp reads and writes (under the TLS layer,
// when there is one). go-smtp sets a deadline before each command and clears
// it afterwards, which would overwrite one set from outside; deadlineConn
// clamps every deadline go-smtp asks for to ctx's deadline and to a limit of
// its own, and moves it to the past once ctx is done. The mutex orders
// go-smtp's calls against expire, so a cancellation is never lost.
type deadlineConn struct {
	net.Conn
	ctx context.Context

	mu          sync.Mutex
	limit       time.Time // extra bound (setup, DATA); zero: none
	read, write time.Time // what go-smtp asked for
	sawSTARTTLS bool      // a write began with "STARTTLS" (see watch)
	watch       bool      // look at writes for STARTTLS (setup only: no secrets yet)
}

// newDeadlineConn wraps conn and arranges for ctx's end to cut its I/O. The
// returned stop undoes the arrangement.
func newDeadlineConn(ctx context.Context, conn net.Conn) (*deadlineConn, func() bool) {
	dc := &deadlineConn{Conn: conn, ctx: ctx}
	dc.mu.Lock()
	_ = dc.applyLocked()
	dc.mu.Unlock()
	return dc, context.AfterFunc(ctx, dc.expire)
}

// SetDeadline implements net.Conn.
func (d *deadlineConn) SetDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read, d.write = t, t
	return d.applyLocked()
}

// SetReadDeadline implements net.Conn.
func (d *deadlineConn) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read = t
	return d.applyLocked()
}

// SetWriteDeadline implements net.Conn.
func (d *deadlineConn) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.write = t
	return d.applyLocked()
}

// Write implements net.Conn; during setup it notes a STARTTLS command.
func (d *deadlineConn) Write(b []byte) (int, error) {
	d.mu.Lock()
	if d.watch && bytes.HasPrefix(b, []byte("STARTTLS")) {
		d.sawSTARTTLS = true
	}
	d.mu.Unlock()
	return d.Conn.Write(b)
}

// setLimit bounds every deadline by limit; the zero time removes the bound.
func (d *deadlineConn) setLimit(limit time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.limit = limit
	_ = d.applyLocked() // fails only on a closed conn, which fails anyway
}

// watchSTARTTLS turns the noting of a STARTTLS command on or off. It is on
// only during the session setup, before any credential is written.
func (d *deadlineConn) watchSTARTTLS(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.watch = on
}

// startTLSSent reports whether a STARTTLS command was written during setup.
func (d *deadlineConn) startTLSSent() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sawSTARTTLS
}

// expire makes every blocked and later Read and Write fail at once.
func (d *deadlineConn) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.applyLocked()
}

func (d *deadlineConn) applyLocked() error {
	if err := d.Conn.SetReadDeadline(d.clampLocked(d.read)); err != nil {
		return err
	}
	return d.Conn.SetWriteDeadline(d.clampLocked(d.write))
}

// clampLocked bounds t by ctx and the limit.
func (d *deadlineConn) clampLocked(t time.Time) time.Time {
	if d.ctx.Err() != nil {
		return past
	}
	if cd, ok := d.ctx.Deadline(); ok {
		t = earliest(t, cd)
	}
	return earliest(t, d.limit)
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
