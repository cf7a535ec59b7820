package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// overloadAnswer is what a connection beyond MCP_MAX_CONNECTIONS gets before
// it is closed: a complete HTTP response, so clients see 503 and back off
// instead of a reset or a connection stuck in the accept queue.
var overloadAnswer = []byte(fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\n"+
	"Content-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
	len(overloadBody), overloadBody))

const overloadBody = `{"error":{"code":"TOO_MANY_CONNECTIONS","message":"too many open connections; retry soon"}}`

// limitListener keeps at most max connections open. When a new one comes
// and all slots are taken, a connection that has not authenticated goes
// first (the oldest), then an idle keep-alive connection (idle the
// longest); only when every slot serves an authenticated request (an SSE
// stream, a long wait) or was opened or went idle within evictGrace is the
// new connection answered 503. The grace keeps a client that has just
// connected, and has not sent its key yet, from being cut mid-request. So clients without a key cannot hold the service, however
// many sockets they open, and /health stays answerable. Refusals are written
// by a bounded number of goroutines, so a flood costs neither memory nor
// file descriptors for long.
type limitListener struct {
	net.Listener
	max    int
	reject chan struct{} // bounds the goroutines answering 503

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
}

// newLimitListener wraps ln; max must be at least 1.
func newLimitListener(ln net.Listener, max int) *limitListener {
	return &limitListener{Listener: ln, max: max, reject: make(chan struct{}, 256), conns: map[*limitedConn]struct{}{}}
}

// Accept returns the next connection under the limit, making room for it
// when it can.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc, victim := l.admit(c, time.Now())
		if victim != nil {
			// Its server goroutine sees the close, ends, and calls
			// Close, which finds the slot already given back.
			_ = victim.Conn.Close()
		}
		if lc != nil {
			return lc, nil
		}
		l.refuse(c)
	}
}

// admit takes a slot for c, freeing the one of a victim when all are taken;
// lc is nil when there was no room.
func (l *limitListener) admit(c net.Conn, now time.Time) (lc, victim *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		if victim = l.victimLocked(now.Add(-evictGrace)); victim == nil {
			return nil, nil
		}
		delete(l.conns, victim)
	}
	lc = &limitedConn{Conn: c, l: l, accepted: now.UnixNano()}
	l.conns[lc] = struct{}{}
	return lc, victim
}

// evictGrace is how long a connection is safe from eviction after it was
// accepted (while it sends its first request) or went idle (between the
// requests of a keep-alive client); a variable so that a test can set it.
var evictGrace = time.Second

// victimLocked is the oldest connection that never authenticated, else the
// one idle the longest, else nil; either must date from before cutoff.
func (l *limitListener) victimLocked(cutoff time.Time) *limitedConn {
	var unauth, idle *limitedConn
	var idleFrom int64
	before := cutoff.UnixNano()
	for c := range l.conns {
		since := c.idleSince.Load()
		switch {
		case !c.authed.Load():
			if c.accepted <= before && (unauth == nil || c.accepted < unauth.accepted) {
				unauth = c
			}
		case since != 0 && since <= before:
			if idle == nil || since < idleFrom {
				idle, idleFrom = c, since
			}
		}
	}
	if unauth != nil {
		return unauth
	}
	return idle
}

// release gives c's slot back (once: a second call finds nothing).
func (l *limitListener) release(c *limitedConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// refuse answers 503 and closes c; when too many refusals are in flight it
// just closes c.
func (l *limitListener) refuse(c net.Conn) {
	select {
	case l.reject <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-l.reject }()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_, _ = c.Write(overloadAnswer)
		_ = c.Close()
	}()
}

// limitedConn is one admitted connection with what the limit needs to know
// of it: whether a request on it passed the API key check, and whether it
// sits idle between requests.
type limitedConn struct {
	net.Conn
	l         *limitListener
	accepted  int64 // unix nanoseconds
	authed    atomic.Bool
	idleSince atomic.Int64 // unix nanoseconds; 0 while not idle
}

// Close closes the connection and frees its slot.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.release(c)
	return err
}

// trackConnState is http.Server.ConnState: it tells the limit which
// connections are idle.
func trackConnState(c net.Conn, state http.ConnState) {
	if lc, ok := c.(*limitedConn); ok {
		var since int64
		if state == http.StateIdle {
			since = time.Now().UnixNano()
		}
		lc.idleSince.Store(since)
	}
}

// connKey is the context key of a request's *limitedConn.
type connKey struct{}

// withConn is http.Server.ConnContext: it makes a request's connection
// known to markAuthenticated.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// markAuthenticated is transport.Options.Admitted: the connection of a
// request that passed the API key check and sent its whole body has proved
// it holds a key, so the limit keeps it over connections that have not.
func markAuthenticated(r *http.Request) {
	if lc, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
		lc.authed.Store(true)
	}
}
