package imap

import (
	"context"
	"mime"
	"net"
	"sort"
	"sync/atomic"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message/charset"

	"github.com/email-mcp/email-mcp/internal/clampconn"
)

// logoutTimeout bounds the polite LOGOUT sent when a connection is closed.
const logoutTimeout = time.Second

// conn is one connection: an imapclient.Client over a clampconn.Conn.
type conn struct {
	ic       *imapclient.Client
	dc       *clampconn.Conn
	tls      bool          // the transport is TLS (implicit or after STARTTLS)
	caps     goimap.CapSet // after login: capabilities do not change afterwards
	lastUsed time.Time
	spoiled  bool       // an exchange was cut off: never reuse
	sel      *selection // the selected folder; nil when none (see select.go)
	// reused: the last selectFolder kept the selection it found, whose view
	// may predate new mail (retryStale).
	reused bool
	// exists gets a token when the server reports the number of messages
	// of the selected folder (EXISTS) on its own: new mail. Only a watcher
	// reads it; elsewhere the token just stays.
	exists chan struct{}
	// changes counts the unsolicited reports that changed the selected
	// folder's view: an EXISTS other than known, an EXPUNGE. known is set
	// from imapclient's own count before a command that watches changes
	// (search): imapclient hands the EXPUNGEs of our own UID EXPUNGE to
	// that command, not to the handler, so a count kept here would drift.
	// Both are written on imapclient's reader goroutine.
	known   atomic.Uint32
	changes atomic.Uint64
}

// newConnState is a conn without its imapclient yet: the client's options
// need the conn (see options).
func newConnState(dc *clampconn.Conn, isTLS bool) *conn {
	return &conn{dc: dc, tls: isTLS, lastUsed: time.Now(), exists: make(chan struct{}, 1)}
}

// options are the imapclient options of the connection. No DebugWriter:
// the wire log would contain the password. The handler runs on
// imapclient's reader goroutine, so it never blocks.
func (cn *conn) options() *imapclient.Options {
	return &imapclient.Options{
		WordDecoder: &mime.WordDecoder{CharsetReader: charset.Reader},
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(d *imapclient.UnilateralDataMailbox) {
				if d.NumMessages == nil {
					return
				}
				if cn.known.Swap(*d.NumMessages) != *d.NumMessages {
					cn.changes.Add(1)
				}
				select {
				case cn.exists <- struct{}{}:
				default:
				}
			},
			Expunge: func(uint32) {
				cn.known.Add(^uint32(0))
				cn.changes.Add(1)
			},
		},
	}
}

// newConn starts an imapclient over nc (no I/O until the greeting is read).
func newConn(nc net.Conn, isTLS bool) *conn {
	cn := newConnState(clampconn.New(nc), isTLS)
	cn.ic = imapclient.New(cn.dc, cn.options())
	return cn
}

// run runs fn under ctx and timeout (see bridge); a cut-off exchange spoils
// the connection.
func (cn *conn) run(ctx context.Context, timeout time.Duration, fn func(*imapclient.Client) error) error {
	spoiled, err := bridge(ctx, cn.dc, timeout, func() error { return fn(cn.ic) })
	if spoiled {
		cn.spoiled = true
	}
	return err
}

// cut makes every pending and later read and write fail at once and marks
// the connection spoiled: for a transfer that cannot finish in step with
// the server (the caller's reader or writer failed mid-literal).
func (cn *conn) cut() {
	cn.spoiled = true
	cn.dc.SetLimit(time.Now())
}

// dead reports whether imapclient's reader has stopped (EOF, BYE, error).
func (cn *conn) dead() bool {
	select {
	case <-cn.ic.Closed():
		return true
	default:
		return false
	}
}

// close closes the connection at once; it returns when imapclient's reader
// goroutine has ended.
func (cn *conn) close() {
	_ = cn.ic.Close()
}

// logout sends LOGOUT (bounded by logoutTimeout) and closes.
func (cn *conn) logout() {
	if !cn.spoiled && !cn.dead() {
		_ = cn.run(context.Background(), logoutTimeout, func(ic *imapclient.Client) error {
			return ic.Logout().Wait()
		})
	}
	cn.close()
}

// capList returns capabilities as sorted strings.
func capList(caps goimap.CapSet) []string {
	l := make([]string, 0, len(caps))
	for c := range caps {
		l = append(l, string(c))
	}
	sort.Strings(l)
	return l
}
