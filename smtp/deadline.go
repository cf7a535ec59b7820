package smtp

import (
	"bytes"
	"context"
	"net"
	"sync"

	"github.com/email-mcp/email-mcp/internal/clampconn"
)

// deadlineConn is the net.Conn go-smtp reads and writes (under the TLS
// layer, when there is one). go-smtp sets a deadline before each command and
// clears it afterwards, which would overwrite one set from outside: the
// clampconn.Conn bounds them by ctx's deadline and a limit of its own, and
// cuts the I/O once ctx is done. On top, during the session setup, it notes
// whether a STARTTLS command was written (see watchSTARTTLS).
type deadlineConn struct {
	*clampconn.Conn

	mu          sync.Mutex
	sawSTARTTLS bool // a write began with "STARTTLS"
	watch       bool // look at writes for STARTTLS (setup only: no secrets yet)
}

// newDeadlineConn wraps conn and arranges for ctx's end to cut its I/O. The
// returned stop undoes the arrangement.
func newDeadlineConn(ctx context.Context, conn net.Conn) (*deadlineConn, func() bool) {
	dc := &deadlineConn{Conn: clampconn.New(conn)}
	return dc, dc.Bind(ctx)
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
