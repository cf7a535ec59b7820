package imap

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
)

// Reconnect backoff after a failed dial or login.
const (
	backoffMin = 100 * time.Millisecond
	backoffMax = 5 * time.Second
	// noopTimeout bounds the NOOP that checks an idle connection: a healthy
	// one answers in a round trip, and a dead one must not stall the caller
	// for a whole CommandTimeout.
	noopTimeout = 5 * time.Second
)

// Client is the IMAP adapter: a pool of logged-in connections that every
// operation goes through. It is safe for concurrent use.
type Client struct {
	opts         Options
	addr         string
	sem          chan struct{} // one token per connection in use or being dialled
	done         chan struct{} // closed by Close
	startTLSSeen atomic.Bool   // SecurityStartTLSOptional: the server offered STARTTLS once

	mu       sync.Mutex
	idle     []*conn // most recently used last
	closed   bool
	open     int // connections established and not yet closed
	inUse    int
	dials    uint64
	discards uint64
	failures int       // consecutive failed dials
	retryAt  time.Time // no dial before this after a failure
	lastErr  error     // the last dial failure, returned until retryAt

	watch      watchState      // the watchers of folders (watch.go)
	unfinished unfinishedMoves // moves whose outcome is unknown (move_repair.go)
}

// PoolStats is a snapshot of the pool.
type PoolStats struct {
	Open     int    // connections open (in use or idle)
	InUse    int    // connections handed out
	Idle     int    // connections waiting in the pool
	Dials    uint64 // dial attempts, failed ones included
	Discards uint64 // connections closed because broken, cut off or stale
}

// New returns a Client for opts. It does no I/O: the first operation dials.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	c := &Client{
		opts: opts,
		addr: opts.address(),
		sem:  make(chan struct{}, opts.PoolSize),
		done: make(chan struct{}),
	}
	c.watch.init()
	return c
}

// Stats returns a snapshot of the pool.
func (c *Client) Stats() PoolStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return PoolStats{Open: c.open, InUse: c.inUse, Idle: len(c.idle), Dials: c.dials, Discards: c.discards}
}

// do runs one operation on a pooled connection, under ctx and
// CommandTimeout for the whole of fn, and translates its error once. fn must
// consume every command it starts. After an error the connection is
// discarded unless keepConn says the server left it healthy.
func (c *Client) do(ctx context.Context, op string, fn func(cn *conn) error) error {
	return c.doTimeout(ctx, op, c.opts.CommandTimeout, fn)
}

// doTimeout is do with another deadline than CommandTimeout, for operations
// that legitimately take longer (large downloads).
func (c *Client) doTimeout(ctx context.Context, op string, timeout time.Duration, fn func(cn *conn) error) error {
	cn, err := c.get(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = cn.run(ctx, timeout, func(*imapclient.Client) error { return retryStale(cn, fn) })
	c.put(cn, err)
	return translate(op, err)
}

// retryStale runs fn; when it finds no message in a folder whose selection
// it reused, whose view may predate the message (see selection), it syncs
// with a NOOP and runs fn once more. A message missing from a folder just
// selected is missing: no second try. The operations that can answer
// ErrMessageNotFound check first and change nothing then, so running one
// twice is safe.
func retryStale(cn *conn, fn func(cn *conn) error) error {
	cn.reused = false
	err := fn(cn)
	if !cn.reused || !errors.Is(err, ErrMessageNotFound) {
		return err
	}
	if serr := cn.sync(); serr != nil {
		return serr
	}
	return fn(cn)
}

// get waits for a pool token (on ctx), then hands out an idle connection
// that passes its checks or dials a new one.
func (c *Client) get(ctx context.Context) (*conn, error) {
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	cn, err := c.take(ctx)
	if err != nil {
		<-c.sem
		return nil, err
	}
	return cn, nil
}

// acquire takes a token: at most PoolSize connections are in use or being
// dialled at once, and idle ones hold none (see take).
func (c *Client) acquire(ctx context.Context) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("waiting for a free connection: %w", err)
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-c.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for a free connection: %w", ctx.Err())
	}
}

// take returns a usable idle connection, or dials. A token holder dials only
// when no connection is idle, so open connections never outnumber tokens
// plus idle ones, which together never exceed PoolSize.
func (c *Client) take(ctx context.Context) (*conn, error) {
	for {
		cn, err := c.popIdle()
		if err != nil {
			return nil, err
		}
		if cn == nil {
			return c.dial(ctx)
		}
		if c.reusable(ctx, cn) {
			return cn, nil
		}
		c.discard(cn, "failed its check")
		if ctx.Err() != nil {
			return nil, fmt.Errorf("checking a pooled connection: %w", ctx.Err())
		}
	}
}

// popIdle moves the most recently used idle connection to in use, after
// closing those idle longer than MaxIdleTime.
func (c *Client) popIdle() (*conn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	expired := c.expireLocked()
	var cn *conn
	if n := len(c.idle); n > 0 {
		cn, c.idle = c.idle[n-1], c.idle[:n-1]
		c.inUse++
	}
	c.mu.Unlock()
	for _, old := range expired {
		old.close() // no LOGOUT: the server may have dropped it already
	}
	return cn, nil
}

// expireLocked removes and returns idle connections past MaxIdleTime.
func (c *Client) expireLocked() []*conn {
	if c.opts.MaxIdleTime <= 0 {
		return nil
	}
	var expired []*conn
	keep := c.idle[:0]
	for _, cn := range c.idle {
		if time.Since(cn.lastUsed) > c.opts.MaxIdleTime {
			expired = append(expired, cn)
			c.open--
		} else {
			keep = append(keep, cn)
		}
	}
	clear(c.idle[len(keep):])
	c.idle = keep
	return expired
}

// reusable checks an idle connection: its reader must be alive, and one
// unused for longer than IdleCheck must answer a NOOP.
func (c *Client) reusable(ctx context.Context, cn *conn) bool {
	if cn.dead() {
		return false
	}
	if time.Since(cn.lastUsed) <= c.opts.IdleCheck {
		return true
	}
	err := cn.run(ctx, min(noopTimeout, c.opts.CommandTimeout), func(ic *imapclient.Client) error {
		return ic.Noop().Wait()
	})
	return err == nil && !cn.spoiled
}

// discard closes an in-use connection that will not go back to the pool.
func (c *Client) discard(cn *conn, why string) {
	c.mu.Lock()
	c.inUse--
	c.open--
	c.discards++
	c.mu.Unlock()
	c.opts.Logger.Debug("imap: connection discarded", "addr", c.addr, "reason", why)
	cn.close()
}

// put returns a connection after an operation that ended with err, then
// frees its token.
func (c *Client) put(cn *conn, err error) {
	defer func() { <-c.sem }()
	switch {
	case cn.spoiled:
		c.discard(cn, "cut off by a deadline or cancellation")
		return
	case !keepConn(err):
		c.discard(cn, "error: "+err.Error())
		return
	case cn.dead():
		c.discard(cn, "closed by the server")
		return
	}
	c.mu.Lock()
	c.inUse--
	if c.closed {
		c.open--
		c.mu.Unlock()
		cn.logout()
		return
	}
	cn.lastUsed = time.Now()
	c.idle = append(c.idle, cn)
	c.mu.Unlock()
}

// dial opens a connection unless a recent failure asks to wait: then it
// fails at once with that failure, so a dead server or a wrong password is
// not hammered. Each call dials at most once; the error comes back at once.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	if _, err := c.dialBlocked(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.dials++
	c.mu.Unlock()
	cn, err := c.connect(ctx, nil)
	c.dialed(ctx, err)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.open++
		c.inUse++
	}
	c.mu.Unlock()
	if closed {
		cn.logout()
		return nil, ErrClosed
	}
	c.opts.Logger.Debug("imap: connected", "addr", c.addr, "security", c.opts.Security.String())
	return cn, nil
}

// dialBlocked reports how long the backoff after a failed dial still lasts
// and the error to fail with meanwhile (nil when dialling is allowed). The
// pool and the watchers share it.
func (c *Client) dialBlocked() (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wait := time.Until(c.retryAt); c.failures > 0 && wait > 0 {
		return wait, fmt.Errorf("not reconnecting for %v after a failure: %w", wait.Round(time.Millisecond), c.lastErr)
	}
	return 0, nil
}

// dialed records the outcome of a connect made within ctx in the shared
// backoff: a failure starts or lengthens it, a success ends it. A failure
// because ctx ended (the caller gave up, or its own deadline came first)
// says nothing about the server: it is not counted, or every other call
// would fail at once with that caller's "deadline exceeded" for the whole
// backoff.
func (c *Client) dialed(ctx context.Context, err error) {
	c.mu.Lock()
	if err == nil {
		c.failures, c.lastErr = 0, nil
		c.mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		c.mu.Unlock()
		c.opts.Logger.Debug("imap: connect ended with its caller", "addr", c.addr, "err", err)
		return
	}
	c.failures++
	c.retryAt = time.Now().Add(backoff(c.failures))
	c.lastErr = err
	failures := c.failures
	c.mu.Unlock()
	c.opts.Logger.Warn("imap: connect failed", "addr", c.addr, "failures", failures, "err", err)
}

// backoff is the wait after n consecutive failures: 100 ms doubling to 5 s,
// with jitter in its upper half so that replicas do not dial in step.
func backoff(n int) time.Duration {
	d := backoffMax
	if n < 16 {
		d = min(backoffMin<<(n-1), backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// Close closes the idle connections (with a bounded LOGOUT), makes those in
// use close when they come back, and makes every later operation fail with
// ErrClosed. Waiting operations wake up with ErrClosed. It stops every
// watcher and returns when their goroutines have ended; their
// subscriptions close with ErrClosed. It is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.done)
	idle := c.idle
	c.idle = nil
	c.open -= len(idle)
	c.mu.Unlock()

	c.watch.close()
	var wg sync.WaitGroup
	for _, cn := range idle {
		wg.Go(cn.logout)
	}
	wg.Wait()
	return nil
}
