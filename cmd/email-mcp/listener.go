package main

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// overloadAnswer is what a connection beyond MCP_MAX_CONNECTIONS gets before
// it is closed: a complete HTTP response, so clients see 503 and back off
// instead of a reset or a connection stuck in the accept queue.
var overloadAnswer = []byte(fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\n"+
	"Content-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
	len(overloadBody), overloadBody))

const overloadBody = `{"error":{"code":"TOO_MANY_CONNECTIONS","message":"too many open connections; retry soon"}}`

// limitListener accepts at most max connections at once. Connections beyond
// it are answered 503 and closed by a bounded number of goroutines, so a
// flood of connections costs neither memory nor file descriptors for long.
type limitListener struct {
	net.Listener
	slots  chan struct{} // one token per open connection
	reject chan struct{} // bounds the goroutines answering 503
}

// newLimitListener wraps ln; max must be at least 1.
func newLimitListener(ln net.Listener, max int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), reject: make(chan struct{}, 256)}
}

// Accept returns the next connection under the limit.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			l.refuse(c)
		}
	}
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

// limitedConn gives its slot back once, on the first Close.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and frees its slot.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
