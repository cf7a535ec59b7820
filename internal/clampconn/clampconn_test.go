package clampconn_test

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/internal/clampconn"
)

// pipe returns a Conn over one end of a loopback TCP connection whose other
// end never writes.
func pipe(t *testing.T) *clampconn.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if peer := <-accepted; peer != nil {
		t.Cleanup(func() { peer.Close() })
	}
	return clampconn.New(nc)
}

// readErr runs a Read in the background and returns its error, or fails the
// test when the Read is still blocked after a generous bound (a hang
// detector, not a timing assertion).
func readErr(t *testing.T, c *clampconn.Conn, cut func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	cut()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked after the cut")
		return nil
	}
}

func TestLimitInThePastCutsABlockedRead(t *testing.T) {
	c := pipe(t)
	// The library clears its deadline (as go-imap does between responses):
	// the limit still applies.
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	err := readErr(t, c, func() { c.SetLimit(time.Now()) })
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read after SetLimit(now) = %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestLibraryDeadlineCannotExtendTheLimit(t *testing.T) {
	c := pipe(t)
	c.SetLimit(time.Now().Add(-time.Second))
	err := readErr(t, c, func() { _ = c.SetReadDeadline(time.Now().Add(time.Hour)) })
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read with a later library deadline = %v, want the limit to win", err)
	}
}

func TestBoundContextEndCutsIO(t *testing.T) {
	c := pipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	stop := c.Bind(ctx)
	defer stop()
	err := readErr(t, c, cancel)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read after the context ended = %v, want os.ErrDeadlineExceeded", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read after clearing the deadline, context ended = %v, want it cut still", err)
	}
}

func TestEarliest(t *testing.T) {
	a, b := time.Unix(100, 0), time.Unix(200, 0)
	for _, tt := range []struct{ x, y, want time.Time }{
		{a, b, a}, {b, a, a}, {time.Time{}, b, b}, {a, time.Time{}, a}, {time.Time{}, time.Time{}, time.Time{}},
	} {
		if got := clampconn.Earliest(tt.x, tt.y); !got.Equal(tt.want) {
			t.Errorf("Earliest(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}
