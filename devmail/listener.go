package devmail

import (
	"net"
	"sync"
	"time"
)

// connTracker counts and remembers the connections accepted on its
// listeners, so that Close can end them all (the upstream servers only close
// the connections their serving goroutines have registered, which misses a
// connection accepted an instant before Close).
type connTracker struct {
	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
}

func newConnTracker() *connTracker {
	return &connTracker{conns: make(map[*trackedConn]struct{})}
}

// listen wraps ln so that every accepted connection is tracked.
func (t *connTracker) listen(ln net.Listener) net.Listener {
	return &trackingListener{Listener: ln, t: t}
}

// count is the number of open tracked connections.
func (t *connTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns)
}

// closeAll closes every tracked connection; connections accepted later are
// closed at once.
func (t *connTracker) closeAll() {
	t.mu.Lock()
	t.closed = true
	conns := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

func (t *connTracker) add(c *trackedConn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.conns[c] = struct{}{}
	return true
}

func (t *connTracker) remove(c *trackedConn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

type trackingListener struct {
	net.Listener
	t *connTracker
}

// Accept returns the next connection, tracked. After closeAll it still
// returns the connection, already closed, so the server's goroutine for it
// ends at its first read.
func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: l.t}
	if !l.t.add(tc) {
		_ = c.Close()
	}
	return tc, nil
}

// trackedConn leaves its tracker when closed. Upstream servers wrap it in a
// *tls.Conn after STARTTLS; closing that closes this one too.
type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.t.remove(c) })
	return err
}

// sessionSet counts live IMAP sessions so that Close can wait for their
// goroutines to finish.
type sessionSet struct {
	mu      sync.Mutex
	n       int
	idle    chan struct{} // closed while n == 0
	refused bool
}

func newSessionSet() *sessionSet {
	idle := make(chan struct{})
	close(idle)
	return &sessionSet{idle: idle}
}

// add registers a session; it reports false once refuse was called.
func (s *sessionSet) add() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused {
		return false
	}
	if s.n == 0 {
		s.idle = make(chan struct{})
	}
	s.n++
	return true
}

func (s *sessionSet) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n--
	if s.n == 0 {
		close(s.idle)
	}
}

// refuse makes every later add fail.
func (s *sessionSet) refuse() {
	s.mu.Lock()
	s.refused = true
	s.mu.Unlock()
}

// wait blocks until no session is live or the timeout passes, and reports
// whether all sessions ended.
func (s *sessionSet) wait(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		s.mu.Lock()
		idle, n := s.idle, s.n
		s.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-idle: // a session may have started since: look again
		case <-t.C:
			return false
		}
	}
}
