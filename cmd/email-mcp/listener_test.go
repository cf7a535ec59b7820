package main

import (
	"net"
	"testing"
	"time"
)

// stubListener accepts the connections it is given, one per Accept, and
// ends when next is closed.
type stubListener struct {
	net.Listener
	next chan net.Conn
}

func (s *stubListener) Accept() (net.Conn, error) {
	c, ok := <-s.next
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}

// TestLimitListenerVictims: at the limit, a new connection displaces the
// oldest one that has not authenticated, then the one idle the longest;
// connections within the grace and authenticated active ones are kept, and
// with nothing to displace the newcomer is refused.
func TestLimitListenerVictims(t *testing.T) {
	oldGrace := evictGrace
	evictGrace = time.Hour // only the fake times below are older than this
	t.Cleanup(func() { evictGrace = oldGrace })
	stub := &stubListener{next: make(chan net.Conn, 1)}
	t.Cleanup(func() { close(stub.next) }) // ends the last Accept
	l := newLimitListener(stub, 3)
	accept := func() (*limitedConn, net.Conn) {
		t.Helper()
		server, client := net.Pipe()
		t.Cleanup(func() { server.Close(); client.Close() })
		stub.next <- server
		done := make(chan net.Conn, 1)
		go func() { c, _ := l.Accept(); done <- c }()
		select {
		case c := <-done:
			return c.(*limitedConn), client
		case <-time.After(10 * time.Second):
			t.Fatal("Accept did not return")
			return nil, nil
		}
	}
	old := time.Now().Add(-2 * time.Hour).UnixNano()
	older := time.Now().Add(-3 * time.Hour).UnixNano()

	authedActive, _ := accept()
	authedActive.authed.Store(true)
	authedActive.accepted = older
	authedIdle, _ := accept()
	authedIdle.authed.Store(true)
	authedIdle.idleSince.Store(old)
	unauth, _ := accept()
	unauth.accepted = old

	// Full: the unauthenticated one goes, though it is younger than the
	// authenticated ones.
	fourth, _ := accept()
	if _, kept := l.conns[unauth]; kept {
		t.Fatal("the unauthenticated connection was kept, want it displaced first")
	}
	// The newcomer is within its grace; next to go is the idle one.
	fourth.authed.Store(true)
	fifth, _ := accept()
	if _, kept := l.conns[authedIdle]; kept {
		t.Fatal("the idle authenticated connection was kept, want it displaced")
	}
	if _, kept := l.conns[authedActive]; !kept {
		t.Fatal("the active authenticated connection was displaced")
	}
	// Now: authedActive, fourth (authenticated, active), fifth (in its
	// grace): nothing may go, so a newcomer is refused with a 503.
	if _, kept := l.conns[fifth]; !kept {
		t.Fatal("the newest connection is not held")
	}
	server, client := net.Pipe()
	defer client.Close()
	stub.next <- server
	go func() { _, _ = l.Accept() }()
	buf := make([]byte, 12)
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := client.Read(buf); err != nil || string(buf[:n]) != "HTTP/1.1 503" {
		t.Fatalf("newcomer with nothing to displace read %q, %v; want the 503", buf[:n], err)
	}
	if len(l.conns) != 3 {
		t.Errorf("%d connections held, want 3", len(l.conns))
	}
}
