package faultproxy_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/internal/faultproxy"
)

// ioWait bounds every read and write of these tests: a guard against
// hangs, not a timing assertion.
const ioWait = 10 * time.Second

// quiet is how long a test watches a stalled connection for bytes that
// must not come. A slower machine can only make it pass, never fail.
const quiet = 200 * time.Millisecond

// server is a target on 127.0.0.1:0 that runs handle for each connection
// and stops at the end of the test, its goroutines included.
func server(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// echo copies everything back.
func echo(c net.Conn) { _, _ = io.Copy(c, c) }

// source writes n bytes (a repeating pattern) and closes.
func source(n int) func(net.Conn) {
	return func(c net.Conn) {
		_, _ = c.Write(pattern(n))
	}
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

// dial connects to the proxy; the test closes the connection.
func dial(t *testing.T, p *faultproxy.Proxy) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), ioWait)
	if err != nil {
		t.Fatalf("Dial(%s) = %v", p.Addr(), err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioWait))
	return c
}

// drain connects to the proxy and reads until the connection fails or
// ends. A reset that comes before the connect completes is a failure too.
func drain(t *testing.T, p *faultproxy.Proxy) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), ioWait)
	if errors.Is(err, syscall.ECONNRESET) {
		return nil
	}
	if err != nil {
		t.Fatalf("Dial(%s) = %v", p.Addr(), err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(ioWait))
	return wantBroken(t, c)
}

// roundTrip writes msg and reads as many bytes back.
func roundTrip(c net.Conn, msg string) (string, error) {
	if _, err := io.WriteString(c, msg); err != nil {
		return "", err
	}
	buf := make([]byte, len(msg))
	_, err := io.ReadFull(c, buf)
	return string(buf), err
}

// wantBroken reads c until it fails and wants a reset or an end of stream
// before ioWait, not a timeout.
func wantBroken(t *testing.T, c net.Conn) []byte {
	t.Helper()
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("read: %v, want a reset or EOF", err)
	}
	return got
}

func TestForward(t *testing.T) {
	faultproxy.CheckLeaks(t)
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
	c := dial(t, p)
	msg := strings.Repeat("hello proxy ", 1000)
	got, err := roundTrip(c, msg)
	if err != nil || got != msg {
		t.Fatalf("roundTrip = %d bytes, %v; want %d bytes back", len(got), err, len(msg))
	}
	st := p.Stats()
	if st.Accepted != 1 || st.Active != 1 || st.BytesUp != uint64(len(msg)) || st.BytesDown != uint64(len(msg)) || st.Cuts != 0 {
		t.Errorf("Stats() = %+v, want 1 accepted and active, %d bytes each way, no cut", st, len(msg))
	}
	if p.Host() != "127.0.0.1" || p.Port() == 0 {
		t.Errorf("Host(), Port() = %q, %d; want 127.0.0.1 and a port", p.Host(), p.Port())
	}
}

func TestHalfClose(t *testing.T) {
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
	c := dial(t, p)
	if _, err := io.WriteString(c, "last words"); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "last words" {
		t.Errorf("after CloseWrite read %q, %v; want the echo then EOF", got, err)
	}
}

func TestCutAll(t *testing.T) {
	faultproxy.CheckLeaks(t)
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
	a, b := dial(t, p), dial(t, p)
	for _, c := range []net.Conn{a, b} {
		if _, err := roundTrip(c, "ping"); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.CutAll(); n != 2 {
		t.Errorf("CutAll() = %d, want 2", n)
	}
	for _, c := range []net.Conn{a, b} {
		wantBroken(t, c)
	}
	if n := p.CutAll(); n != 0 {
		t.Errorf("second CutAll() = %d, want 0", n)
	}
	if got, err := roundTrip(dial(t, p), "again"); err != nil || got != "again" {
		t.Errorf("a new connection after CutAll: %q, %v", got, err)
	}
	if st := p.Stats(); st.Cuts != 2 || st.Accepted != 3 {
		t.Errorf("Stats() = %+v, want 2 cuts, 3 accepted", st)
	}
}

func TestDownAndUp(t *testing.T) {
	tests := []struct {
		name     string
		down     func(p *faultproxy.Proxy)
		refused  bool // the dial itself fails
		rejected uint64
	}{
		{"Down resets new connections", (*faultproxy.Proxy).Down, false, 1},
		{"Refuse closes the port", (*faultproxy.Proxy).Refuse, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
			live := dial(t, p)
			if _, err := roundTrip(live, "accepted"); err != nil {
				t.Fatal(err)
			}
			tt.down(p)
			if tt.refused {
				if _, err := net.DialTimeout("tcp", p.Addr(), ioWait); !errors.Is(err, syscall.ECONNREFUSED) {
					t.Errorf("Dial while refusing = %v, want connection refused", err)
				}
			} else if got := drain(t, p); len(got) != 0 {
				t.Errorf("read %q from a reset connection", got)
			}
			if got, err := roundTrip(live, "still here"); err != nil || got != "still here" {
				t.Errorf("live connection while down: %q, %v; want it untouched", got, err)
			}
			if err := p.Up(); err != nil {
				t.Fatalf("Up() = %v", err)
			}
			if got, err := roundTrip(dial(t, p), "up"); err != nil || got != "up" {
				t.Errorf("after Up: %q, %v", got, err)
			}
			if st := p.Stats(); st.Rejected != tt.rejected || st.Accepted != 2 {
				t.Errorf("Stats() = %+v, want %d rejected, 2 accepted", st, tt.rejected)
			}
		})
	}
}

func TestStall(t *testing.T) {
	faultproxy.CheckLeaks(t)
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
	live := dial(t, p)
	if _, err := roundTrip(live, "accepted"); err != nil {
		t.Fatal(err)
	}
	p.Stall()
	fresh := dial(t, p) // accepted while stalled: stalled too
	for _, c := range []net.Conn{live, fresh} {
		if _, err := io.WriteString(c, "ping"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(quiet))
		var ne net.Error
		if n, err := c.Read(make([]byte, 4)); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("read while stalled = %d bytes, %v; want nothing (a timeout)", n, err)
		}
		_ = c.SetReadDeadline(time.Now().Add(ioWait))
	}
	if st := p.Stats(); st.BytesUp != 8 {
		t.Errorf("Stats() while stalled = %+v, want only the 8 bytes sent before the stall", st)
	}
	p.Resume()
	for _, c := range []net.Conn{live, fresh} {
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
			t.Errorf("after Resume read %q, %v; want ping", buf, err)
		}
	}
	// A cut still works while stalled.
	p.Stall()
	if n := p.CutAll(); n != 2 {
		t.Errorf("CutAll() while stalled = %d, want 2", n)
	}
	wantBroken(t, live)
	p.Resume()
}

func TestSlow(t *testing.T) {
	tests := []struct {
		name  string
		set   func(p *faultproxy.Proxy)
		bytes int
	}{
		{"delay", func(p *faultproxy.Proxy) { p.SetDelay(5 * time.Millisecond) }, 3000},
		{"rate", func(p *faultproxy.Proxy) { p.SetRate(1 << 20) }, 64 << 10},
		{"both", func(p *faultproxy.Proxy) { p.SetDelay(time.Millisecond); p.SetRate(4 << 20) }, 32 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo), ChunkSize: 1024})
			tt.set(p)
			msg := string(pattern(tt.bytes))
			got, err := roundTrip(dial(t, p), msg)
			if err != nil || got != msg {
				t.Fatalf("roundTrip = %d bytes, %v; want the %d bytes intact", len(got), err, len(msg))
			}
			if st := p.Stats(); st.Slowed < 2 || st.Cuts != 0 {
				t.Errorf("Stats() = %+v, want chunks slowed both ways and no cut", st)
			}
		})
	}
}

func TestCutAfter(t *testing.T) {
	const total = 20000
	for _, n := range []int64{1, 100, 4096, 4097, 12345, total} {
		t.Run("", func(t *testing.T) {
			p := faultproxy.Start(t, faultproxy.Options{Target: server(t, source(total))})
			p.SetCutAfter(n)
			// A reset may overtake bytes not read yet: the client gets a
			// prefix of what was forwarded.
			got := drain(t, p)
			if int64(len(got)) > n || !bytes.Equal(got, pattern(len(got))) {
				t.Errorf("SetCutAfter(%d): read %d bytes, want at most the first %d", n, len(got), n)
			}
			if st := p.Stats(); st.Cuts != 1 || st.BytesDown != uint64(n) {
				t.Errorf("SetCutAfter(%d): Stats() = %+v, want 1 cut, %d bytes", n, st, n)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		p := faultproxy.Start(t, faultproxy.Options{Target: server(t, source(total))})
		p.SetCutAfter(10)
		p.SetCutAfter(0)
		if got := drain(t, p); len(got) != total {
			t.Errorf("SetCutAfter(0): read %d bytes, want all %d", len(got), total)
		}
	})
}

func TestCutProbability(t *testing.T) {
	t.Run("always", func(t *testing.T) {
		p := faultproxy.Start(t, faultproxy.Options{Target: server(t, source(50000)), Seed: 7})
		p.SetCutProbability(1)
		for range 5 {
			if got := drain(t, p); len(got) > faultproxy.DefaultChunkSize {
				t.Errorf("probability 1: read %d bytes, want at most the first chunk", len(got))
			}
		}
		if st := p.Stats(); st.Cuts != 5 {
			t.Errorf("Stats() = %+v, want 5 cuts", st)
		}
	})
	t.Run("never", func(t *testing.T) {
		p := faultproxy.Start(t, faultproxy.Options{Target: server(t, source(50000)), Seed: 7})
		p.SetCutProbability(0)
		if got := drain(t, p); len(got) != 50000 {
			t.Errorf("probability 0: read %d bytes, want 50000", len(got))
		}
	})
	t.Run("same seed, same cuts", func(t *testing.T) {
		// One request and one answer at a time: every chunk is one message,
		// so the draws come in the same order on every run.
		exchange := func(seed uint64) int {
			p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo), Seed: seed})
			p.SetCutProbability(0.1)
			c := dial(t, p)
			for i := range 500 {
				if _, err := roundTrip(c, "0123456789"); err != nil {
					return i
				}
			}
			return 500
		}
		for _, seed := range []uint64{1, 2, 3} {
			if a, b := exchange(seed), exchange(seed); a != b || a == 500 {
				t.Errorf("seed %d: %d and %d round trips before the cut, want the same number below 500", seed, a, b)
			}
		}
	})
}

func TestHook(t *testing.T) {
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, echo)})
	var mu sync.Mutex
	var seen []faultproxy.Direction
	p.SetHook(func(dir faultproxy.Direction, chunk []byte) faultproxy.Verdict {
		mu.Lock()
		seen = append(seen, dir)
		mu.Unlock()
		if dir == faultproxy.Upstream && bytes.HasPrefix(chunk, []byte("QUIT")) {
			return faultproxy.Cut
		}
		return faultproxy.Forward
	})
	c := dial(t, p)
	if got, err := roundTrip(c, "DATA"); err != nil || got != "DATA" {
		t.Fatalf("roundTrip(DATA) = %q, %v", got, err)
	}
	if _, err := io.WriteString(c, "QUIT\r\n"); err != nil {
		t.Fatal(err)
	}
	if got := wantBroken(t, c); len(got) != 0 {
		t.Errorf("read %q after the hook cut before QUIT went through", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != faultproxy.Upstream || seen[1] != faultproxy.Downstream {
		t.Errorf("hook saw %v, want upstream, downstream, upstream", seen)
	}
	if st := p.Stats(); st.Cuts != 1 || st.BytesUp != 4 {
		t.Errorf("Stats() = %+v, want 1 cut and only DATA upstream", st)
	}
}

func TestRewriteDownstream(t *testing.T) {
	lines := []string{
		"* OK [CAPABILITY IMAP4rev1 MOVE UIDPLUS] ready\r\n",
		"* CAPABILITY IMAP4rev1 MOVE IDLE\r\n",
		"* 1 FETCH (BODY[] {4}\r\n",
		"MOVE)\r\n",
		"partial line without end",
	}
	tgt := server(t, func(c net.Conn) {
		for _, l := range lines {
			for i := 0; i < len(l); i += 7 { // split lines across chunks
				_, _ = c.Write([]byte(l[i:min(i+7, len(l))]))
				time.Sleep(time.Millisecond)
			}
		}
	})
	p := faultproxy.Start(t, faultproxy.Options{Target: tgt, RewriteDownstream: func(line []byte) []byte {
		if bytes.Contains(line, []byte("CAPABILITY ")) {
			return bytes.ReplaceAll(line, []byte(" MOVE"), nil)
		}
		return line
	}})
	got := wantBroken(t, dial(t, p))
	want := "* OK [CAPABILITY IMAP4rev1 UIDPLUS] ready\r\n* CAPABILITY IMAP4rev1 IDLE\r\n* 1 FETCH (BODY[] {4}\r\nMOVE)\r\npartial line without end"
	if string(got) != want {
		t.Errorf("rewritten stream = %q, want %q", got, want)
	}
}

func TestTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := faultproxy.Start(t, faultproxy.Options{Target: addr})
	if got := drain(t, p); len(got) != 0 {
		t.Errorf("read %q from a proxy whose target is down", got)
	}
	if st := p.Stats(); st.Rejected != 1 || st.Accepted != 0 {
		t.Errorf("Stats() = %+v, want 1 rejected", st)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	faultproxy.CheckLeaks(t)
	tgt := server(t, echo)
	p, err := faultproxy.New(faultproxy.Options{Target: tgt})
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for range 4 {
		conns = append(conns, dial(t, p))
	}
	if _, err := roundTrip(conns[0], "x"); err != nil {
		t.Fatal(err)
	}
	// Connections asleep in a delay, stalled, and idle.
	p.SetDelay(time.Hour)
	_, _ = io.WriteString(conns[1], "slow")
	p.Stall()
	_, _ = io.WriteString(conns[2], "stalled")
	p.Refuse()
	if err := p.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	for _, c := range conns {
		wantBroken(t, c)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	if err := p.Up(); !errors.Is(err, faultproxy.ErrClosed) {
		t.Errorf("Up() after Close = %v, want ErrClosed", err)
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), ioWait); err == nil {
		t.Error("Dial after Close succeeded")
	}
	if st := p.Stats(); st.Active != 0 {
		t.Errorf("Stats().Active = %d after Close, want 0", st.Active)
	}
}

func TestNewWithoutTarget(t *testing.T) {
	if _, err := faultproxy.New(faultproxy.Options{}); err == nil {
		t.Error("New without Target succeeded")
	}
}
