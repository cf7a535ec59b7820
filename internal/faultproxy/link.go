package faultproxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// acceptPause is the wait after a failed Accept that is not the listener's
// end (too many open files, say), so that the loop does not spin.
const acceptPause = 10 * time.Millisecond

// link is one proxied connection: the client's side, the server's side
// once dialled, and the two goroutines that copy between them.
type link struct {
	client net.Conn
	done   chan struct{} // closed by kill
	bytes  atomic.Int64  // forwarded in both directions
	// cutAfter cuts this link alone once it forwarded that many bytes (0:
	// never); set once at admission (CutNextAfter), read under Proxy.mu.
	cutAfter int64

	mu     sync.Mutex
	server net.Conn // nil until dialled
	killed bool
}

// kill closes both sides with a reset (no lingering data) and wakes every
// wait of the link. It reports whether this call did it.
func (l *link) kill() bool { return l.killThen(nil) }

// killThen is kill that first runs counted (when not nil and the link was
// alive), so that a counter is up to date before either side sees the cut.
func (l *link) killThen(counted func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.killed {
		return false
	}
	if counted != nil {
		counted()
	}
	l.killed = true
	close(l.done)
	reset(l.client)
	if l.server != nil {
		reset(l.server)
	}
	return true
}

// setServer records the dialled server side; false if the link was killed
// meanwhile (the caller then closes conn).
func (l *link) setServer(conn net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.killed {
		return false
	}
	l.server = conn
	return true
}

// close ends a link that finished on its own.
func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.killed {
		l.killed = true
		close(l.done)
	}
	_ = l.client.Close()
	if l.server != nil {
		_ = l.server.Close()
	}
}

// reset closes conn so that the peer gets a RST rather than a FIN.
func reset(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// closeWrite passes an end of stream on (a half-close).
func closeWrite(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	_ = conn.Close()
}

// acceptLoop accepts until ln closes (Refuse or Close).
func (p *Proxy) acceptLoop(ln net.Listener) {
	defer p.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || !p.pause() {
				return
			}
			continue
		}
		p.admit(conn)
	}
}

// pause waits acceptPause; false when the proxy closed meanwhile.
func (p *Proxy) pause() bool {
	t := time.NewTimer(acceptPause)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// admit resets conn while down, or starts forwarding it.
func (p *Proxy) admit(conn net.Conn) {
	p.mu.Lock()
	if p.closed || p.down {
		if !p.closed {
			p.stats.Rejected++
		}
		p.mu.Unlock()
		reset(conn)
		return
	}
	l := &link{client: conn, done: make(chan struct{}), cutAfter: p.nextCutAfter}
	p.nextCutAfter = 0
	p.links[l] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	go p.serve(l)
}

// serve dials the target and copies both ways until both directions end,
// then forgets the link.
func (p *Proxy) serve(l *link) {
	defer p.wg.Done()
	defer p.forget(l)
	d := net.Dialer{Timeout: p.opts.DialTimeout}
	server, err := d.DialContext(p.ctx, "tcp", p.opts.Target)
	if err != nil {
		p.count(func(s *Stats) { s.Rejected++ })
		l.kill()
		return
	}
	if !l.setServer(server) {
		reset(server)
		return
	}
	p.count(func(s *Stats) { s.Accepted++ })
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(l, Upstream, l.client, server) })
	p.pipe(l, Downstream, server, l.client)
	wg.Wait()
}

// forget closes l and removes it from the live links.
func (p *Proxy) forget(l *link) {
	l.close()
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// count updates the counters under the lock.
func (p *Proxy) count(f func(*Stats)) {
	p.mu.Lock()
	f(&p.stats)
	p.mu.Unlock()
}

// cut kills l as an injected fault and counts it.
func (p *Proxy) cut(l *link) bool {
	return l.killThen(func() { p.count(func(s *Stats) { s.Cuts++ }) })
}

// pipe copies src to dst chunk by chunk through the faults. An end of
// stream is passed on as a half-close; any other failure, or a cut, ends
// the whole link.
func (p *Proxy) pipe(l *link, dir Direction, src, dst net.Conn) {
	buf := make([]byte, p.opts.ChunkSize)
	var lines []byte // bytes waiting for the end of their line (rewrite)
	rewrite := p.opts.RewriteDownstream
	if dir == Upstream {
		rewrite = p.opts.RewriteUpstream
	}
	for {
		n, err := src.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if rewrite != nil {
				lines = append(lines, chunk...)
				chunk, lines = rewriteLines(lines, rewrite)
			}
			if len(chunk) > 0 && !p.forward(l, dir, dst, chunk) {
				return
			}
		}
		if err == nil {
			continue
		}
		if err == io.EOF && (len(lines) == 0 || p.forward(l, dir, dst, lines)) {
			closeWrite(dst)
			return
		}
		l.kill() // a read error: the other direction cannot go on either
		return
	}
}

// rewriteLines returns the complete lines of buf, rewritten, and the rest.
func rewriteLines(buf []byte, rewrite func([]byte) []byte) (out, rest []byte) {
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return nil, buf
	}
	for line := range bytes.Lines(buf[:end+1]) {
		out = append(out, rewrite(line)...)
	}
	rest = append([]byte(nil), buf[end+1:]...)
	return out, rest
}

// plan is the faults that apply to one chunk, decided under the lock.
type plan struct {
	keep  int  // bytes of the chunk to forward
	cut   bool // cut after forwarding keep bytes
	sleep time.Duration
}

// forward sends chunk to dst through the faults; false when the link ended
// (cut, killed, or the write failed).
func (p *Proxy) forward(l *link, dir Direction, dst net.Conn, chunk []byte) bool {
	if !p.flowing(l) {
		return false
	}
	pl, hook := p.plan(l, len(chunk))
	if hook != nil {
		switch hook(dir, chunk) {
		case Cut:
			p.cut(l)
			return false
		case Hold:
			p.hold(l, dir, chunk)
			return false
		}
	}
	if pl.sleep > 0 && !sleep(l, pl.sleep) {
		return false
	}
	if pl.keep > 0 {
		// Counted first: the peer may act on the bytes before Write returns.
		l.bytes.Add(int64(pl.keep))
		p.count(func(s *Stats) {
			if dir == Upstream {
				s.BytesUp += uint64(pl.keep)
			} else {
				s.BytesDown += uint64(pl.keep)
			}
		})
		if _, err := dst.Write(chunk[:pl.keep]); err != nil {
			l.kill()
			return false
		}
	}
	if pl.cut {
		p.cut(l)
		return false
	}
	return true
}

// plan decides the faults for a chunk of n bytes of l.
func (p *Proxy) plan(l *link, n int) (plan, Hook) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl := plan{keep: n}
	if p.cutProb > 0 && p.rng.Float64() < p.cutProb {
		pl.keep, pl.cut = p.rng.IntN(n+1), true
	}
	for _, after := range []int64{p.cutAfter, l.cutAfter} {
		if after > 0 {
			if left := after - l.bytes.Load(); int64(pl.keep) >= left {
				pl.keep, pl.cut = int(max(left, 0)), true
			}
		}
	}
	pl.sleep = p.delay
	if p.rate > 0 {
		pl.sleep += time.Duration(int64(pl.keep) * int64(time.Second) / int64(p.rate))
	}
	if pl.sleep > 0 {
		p.stats.Slowed++
	}
	return pl, p.hook
}

// flowing waits while the proxy is stalled; false when l ended meanwhile.
func (p *Proxy) flowing(l *link) bool {
	for {
		p.mu.Lock()
		stall := p.stall
		p.mu.Unlock()
		if stall == nil {
			select {
			case <-l.done:
				return false
			default:
				return true
			}
		}
		select {
		case <-stall:
		case <-l.done:
			return false
		}
	}
}

// sleep waits d; false when l ended meanwhile.
func sleep(l *link, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-l.done:
		return false
	}
}

// heldChunk is a chunk that Hold keeps from the server, and the server's
// side of its connection.
type heldChunk struct {
	server net.Conn
	chunk  []byte
}

// hold takes l's server side away from l, keeps chunk for Release and
// cuts the client's side. A downstream chunk is just cut: a client that
// never gets its answer is a plain cut.
func (p *Proxy) hold(l *link, dir Direction, chunk []byte) {
	var server net.Conn
	l.mu.Lock()
	if dir == Upstream && !l.killed {
		server, l.server = l.server, nil // kill and close leave it to Release and Close
	}
	l.mu.Unlock()
	if server != nil {
		p.mu.Lock()
		closed := p.closed
		if !closed {
			p.held = append(p.held, &heldChunk{server: server, chunk: bytes.Clone(chunk)})
		}
		p.mu.Unlock()
		if closed {
			reset(server)
		}
	}
	p.cut(l)
}

// Release forwards every chunk that Hold kept to its server, whose side of
// the connection stays open until Close: the server runs the command as
// for a client still there (Dovecot drops a command that comes with the
// end of the stream). Its answers are read by the link's own reader and
// dropped. Release returns how many chunks it forwarded; it does not wait
// for the server to act on them.
func (p *Proxy) Release() int {
	p.mu.Lock()
	held := p.held
	p.held = nil
	p.mu.Unlock()
	for _, h := range held {
		_, _ = h.server.Write(h.chunk)
	}
	p.mu.Lock()
	p.released = append(p.released, held...)
	p.mu.Unlock()
	return len(held)
}
