package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Defaults of the zero fields of Options.
const (
	DefaultChunkSize   = 4096
	DefaultDialTimeout = 5 * time.Second
)

// ErrClosed is returned by Up after Close.
var ErrClosed = errors.New("faultproxy: closed")

// Direction is the way bytes flow through a connection.
type Direction int

const (
	// Upstream is from the client to the server.
	Upstream Direction = iota
	// Downstream is from the server to the client.
	Downstream
)

// String returns "upstream" or "downstream".
func (d Direction) String() string {
	if d == Upstream {
		return "upstream"
	}
	return "downstream"
}

// Verdict is what a Hook decides for a chunk.
type Verdict int

const (
	// Forward lets the chunk through (the other faults still apply).
	Forward Verdict = iota
	// Cut cuts the connection before the chunk is forwarded.
	Cut
	// Hold cuts the client's side at once but keeps the server's side open
	// and the chunk (an upstream one) held back, until Release forwards it:
	// the server then runs a command whose client is long gone, as a busy
	// server does with a command that sat in its socket buffer.
	Hold
)

// Hook looks at every chunk before it is forwarded. It runs on the
// connection's goroutines, concurrently for several connections and
// directions, and must not keep chunk.
type Hook func(dir Direction, chunk []byte) Verdict

// Options configure a Proxy.
type Options struct {
	// Target is the host:port every connection is forwarded to.
	Target string
	// Seed seeds the random cuts (SetCutProbability): one seed, one
	// sequence of draws. The order in which concurrent connections draw
	// depends on the scheduler.
	Seed uint64
	// ChunkSize is the most bytes read and forwarded at a time; random
	// cuts and hooks work per chunk. Default DefaultChunkSize.
	ChunkSize int
	// DialTimeout bounds the connection to Target. Default
	// DefaultDialTimeout.
	DialTimeout time.Duration
	// RewriteDownstream, when set, is applied to every line (up to and
	// including its '\n') the server sends; it returns the line to forward
	// instead (nil or empty drops it). Bytes are held until their line is
	// complete, so use it only for line-based protocols (IMAP, SMTP).
	RewriteDownstream func(line []byte) []byte
	// RewriteUpstream is RewriteDownstream for the client's lines: turn a
	// command into another, to play a server that answers OK without doing
	// what it was asked, say.
	RewriteUpstream func(line []byte) []byte
}

// Stats counts what the proxy did since New.
type Stats struct {
	Accepted  uint64 // connections accepted and forwarded to the target
	Rejected  uint64 // connections reset while Down, or whose target could not be reached
	Cuts      uint64 // live connections cut on purpose (CutAll, SetCutAfter, SetCutProbability, Hook)
	Active    int    // connections open now
	BytesUp   uint64 // bytes forwarded from clients to the server
	BytesDown uint64 // bytes forwarded from the server to clients
	Slowed    uint64 // chunks held back by SetDelay or SetRate
}

// Proxy is a fault-injecting TCP proxy; see the package documentation. Its
// methods are safe for concurrent use.
type Proxy struct {
	opts   Options
	addr   string          // 127.0.0.1:port, fixed for the proxy's life
	ctx    context.Context // ends at Close: aborts dials to the target
	cancel context.CancelFunc
	wg     sync.WaitGroup // accept loops and connections

	mu       sync.Mutex
	ln       net.Listener // nil while refusing
	links    map[*link]struct{}
	closed   bool
	down     bool          // reset new connections
	stall    chan struct{} // non-nil while stalled; Resume closes it
	delay    time.Duration // per chunk
	rate     int           // bytes per second per connection and direction; 0: unlimited
	cutAfter int64         // cut a connection after this many bytes; 0: never
	// nextCutAfter is CutNextAfter's n, for the next connection accepted.
	nextCutAfter int64
	cutProb      float64 // cut probability per chunk
	hook         Hook
	held         []*heldChunk // Hold's chunks, until Release or Close
	released     []*heldChunk // their connections after Release, closed by Close
	rng          *rand.Rand
	stats        Stats
}

// New starts a proxy to opts.Target on 127.0.0.1:0.
func New(opts Options) (*Proxy, error) {
	if opts.Target == "" {
		return nil, errors.New("faultproxy: no Target")
	}
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	p := &Proxy{
		opts:  opts,
		addr:  ln.Addr().String(),
		ln:    ln,
		links: make(map[*link]struct{}),
		rng:   rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.acceptLoop(ln)
	return p, nil
}

// Start is New for a test: it fails t when the proxy cannot start and
// closes it in t.Cleanup.
func Start(t testing.TB, opts Options) *Proxy {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatalf("faultproxy.New(%q) = %v", opts.Target, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// Addr is the proxy's host:port (127.0.0.1:port); it stays the same across
// Refuse and Up.
func (p *Proxy) Addr() string { return p.addr }

// Host is "127.0.0.1".
func (p *Proxy) Host() string {
	h, _, _ := net.SplitHostPort(p.addr)
	return h
}

// Port is the proxy's port.
func (p *Proxy) Port() int {
	_, ps, _ := net.SplitHostPort(p.addr)
	n, _ := strconv.Atoi(ps)
	return n
}

// Stats returns a snapshot of the counters.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Active = len(p.links)
	return s
}

// CutAll cuts every live connection now (both sides get a reset) and
// returns how many it cut. New connections are forwarded as before.
func (p *Proxy) CutAll() int {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	n := 0
	for _, l := range links {
		if p.cut(l) {
			n++
		}
	}
	return n
}

// Down makes the proxy accept and reset at once every new connection until
// Up, as a server that is restarting does. Live connections are left alone
// (CutAll cuts them).
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
}

// Refuse closes the listening socket until Up: connecting fails with
// "connection refused", as when nothing listens on the port. Live
// connections are left alone.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil || p.closed {
		return
	}
	_ = p.ln.Close()
	p.ln = nil
}

// Up ends Down and Refuse. After Refuse it listens on the same address
// again, which fails if another socket took the port meanwhile.
func (p *Proxy) Up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.down = false
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("faultproxy: listen again on %s: %w", p.addr, err)
	}
	p.ln = ln
	p.wg.Add(1)
	go p.acceptLoop(ln)
	return nil
}

// Stall stops forwarding in both directions, on live and new connections,
// without closing anything, until Resume: each connection holds at most the
// chunk it has read. Cuts and Close still work while stalled.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stall == nil {
		p.stall = make(chan struct{})
	}
}

// Resume ends a Stall.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stall != nil {
		close(p.stall)
		p.stall = nil
	}
}

// SetDelay holds every chunk back for d before forwarding it; 0 ends it.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = max(d, 0)
}

// SetRate caps every connection at bytesPerSecond in each direction;
// 0 removes the cap.
func (p *Proxy) SetRate(bytesPerSecond int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate = max(bytesPerSecond, 0)
}

// SetCutAfter cuts every connection, live or new, once it has forwarded n
// bytes in both directions together since it was accepted: exactly n bytes
// go through, then both sides get a reset. 0 turns it off.
func (p *Proxy) SetCutAfter(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutAfter = max(n, 0)
}

// CutNextAfter cuts the next connection the proxy accepts, and only that
// one, once it has forwarded n bytes in both directions together: exactly
// n bytes go through, then both sides get a reset. Connections accepted
// after it are left alone, so a test can cut one exchange at every byte
// offset in turn and let a client's recovery on a new connection run
// undisturbed. 0 cancels a cut not yet assigned.
func (p *Proxy) CutNextAfter(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextCutAfter = max(n, 0)
}

// SetCutProbability cuts a connection with probability prob at each chunk,
// after forwarding a random part of that chunk (maybe none, maybe all). 0
// turns it off; values are clamped to [0, 1].
func (p *Proxy) SetCutProbability(prob float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutProb = min(max(prob, 0), 1)
}

// SetHook installs h (nil removes it); see Hook.
func (p *Proxy) SetHook(h Hook) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hook = h
}

// Heal removes every fault: Up, Resume, no delay, no rate limit, no
// planned or random cut, no hook. Connections cut before stay cut.
func (p *Proxy) Heal() error {
	p.Resume()
	p.SetDelay(0)
	p.SetRate(0)
	p.SetCutAfter(0)
	p.CutNextAfter(0)
	p.SetCutProbability(0)
	p.SetHook(nil)
	return p.Up()
}

// Close stops listening, cuts every connection and returns once every
// goroutine of the proxy has ended. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return nil
	}
	p.closed = true
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	if p.stall != nil {
		close(p.stall)
		p.stall = nil
	}
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	held := append(p.held, p.released...)
	p.held, p.released = nil, nil
	p.mu.Unlock()
	p.cancel()
	for _, l := range links {
		l.kill()
	}
	for _, h := range held {
		reset(h.server)
	}
	p.wg.Wait()
	return nil
}
