package imap

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// WatchPrefixBytes is how much of each new message a watcher fetches
// (BODY.PEEK[]<0.WatchPrefixBytes>): the header and the bodies of typical
// mail, enough to find a code or a link.
const WatchPrefixBytes = 256 << 10

// chanBuffer is the capacity of Subscription.C (at most WatchQueue); the
// rest of WatchQueue waits in the subscription's queue.
const chanBuffer = 16

// NewMail is a message that arrived in a watched folder (or was found by
// catch-up). Every subscriber gets the same value: Raw and Flags are
// shared, read them only.
type NewMail struct {
	Folder           string
	UID, UIDValidity uint32
	InternalDate     time.Time
	Size             int64 // RFC822.SIZE
	Flags            []string
	// Raw is the message as stored, headers included: all of it when
	// Complete, else its first WatchPrefixBytes bytes.
	Raw      []byte
	Complete bool
}

// WatchStats is a snapshot of the watchers.
type WatchStats struct {
	Watchers    int    // watcher goroutines running (one per watched folder)
	Connections int    // watcher connections open; never taken from the pool
	Subscribers int    // subscriptions open, those still waiting for Subscribe included
	Reconnects  uint64 // watcher connects after a lost or failed one, failed attempts included
	Fetches     uint64 // UID FETCH commands the watchers sent
}

// watchState is the Client's registry of watchers. Its mutex also guards
// the state each watcher shares with Subscribe (see watcher).
type watchState struct {
	mu         sync.Mutex
	folders    map[string]*watcher // by canonical folder name
	closed     bool
	running    int // watcher goroutines
	conns      int // watcher connections open
	reconnects uint64
	fetches    uint64

	wg     sync.WaitGroup // one per watcher goroutine
	ctx    context.Context
	cancel context.CancelFunc // by close
}

func (ws *watchState) init() {
	ws.folders = make(map[string]*watcher)
	ws.ctx, ws.cancel = context.WithCancel(context.Background())
}

// close stops every watcher and waits for their goroutines: each closes
// its connection (a bounded DONE and LOGOUT) and its subscriptions with
// ErrClosed.
func (ws *watchState) close() {
	ws.mu.Lock()
	ws.closed = true
	ws.mu.Unlock()
	ws.cancel()
	ws.wg.Wait()
}

// WatchStats returns a snapshot of the watchers.
func (c *Client) WatchStats() WatchStats {
	ws := &c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	st := WatchStats{Watchers: ws.running, Connections: ws.conns, Reconnects: ws.reconnects, Fetches: ws.fetches}
	for _, w := range ws.folders {
		st.Subscribers += len(w.subs)
	}
	return st
}

// Subscribe registers a waiter on folder and starts the folder's watcher
// if none runs: one goroutine and one connection of its own (dialled like a
// pool connection, not counted in PoolSize) per folder, whatever the
// number of subscribers.
//
// Every message of the folder with a UID above afterUID, in the folder's
// UIDVALIDITY as UIDValidity reports it, is delivered on C once, in UID
// order: those that arrived before Subscribe too (catch-up). afterUID is
// taken literally: 0 means every message of the folder (a wait whose
// cutoff came before the first message). To start at "now", pass
// UIDNext's uidNext-1 and compare UIDValidity with its uidValidity
// (another value means afterUID named messages of a folder that is gone).
//
// Subscribe returns once the watcher has the folder selected, or with its
// error: ErrFolderNotFound, ErrAuthFailed, ErrConnection, a timeout, or
// ErrClosed. ctx bounds only that wait; the subscription lasts until Close,
// or until C closes on its own (see Err). While the watcher reconnects
// after a failed connect, Subscribe fails at once with that failure, as
// the pool does.
func (c *Client) Subscribe(ctx context.Context, folder string, afterUID uint32) (*Subscription, error) {
	op := fmt.Sprintf("subscribe to %q", folder)
	if err := checkFolder(folder); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	s := newSubscription(afterUID, c.opts.WatchQueue)
	if err := c.register(canonicalFolder(folder), s); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("%s: waiting for the watcher: %w", op, ctx.Err())
	}
	if s.readyErr != nil {
		return nil, fmt.Errorf("%s: %w", op, s.readyErr)
	}
	return s, nil
}

// register adds s to folder's watcher, which it starts when none runs.
func (c *Client) register(folder string, s *Subscription) error {
	ws := &c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return ErrClosed
	}
	w := ws.folders[folder]
	switch {
	case w == nil:
		w = newWatcher(c, folder)
		ws.folders[folder] = w
		ws.running++
		ws.wg.Add(1)
		go w.run(ws.ctx)
	case !w.live && w.lastErr != nil && time.Now().Before(w.retryAt):
		return w.lastErr
	}
	s.w = w
	w.addLocked(s)
	return nil
}

// Subscription receives the new messages of one folder; see Subscribe.
type Subscription struct {
	// C delivers the messages in UID order. It is closed by Close, or by
	// the watcher with the reason in Err.
	C <-chan NewMail

	ch          chan NewMail
	w           *watcher
	afterUID    uint32        // as asked; 0: every message of the folder
	ready       chan struct{} // closed once attached to the watcher or failed
	readyErr    error         // why it failed; set before ready closes
	uidValidity uint32        // set before ready closes

	// Guarded by the Client's watch.mu.
	attached bool   // has uidValidity and seen
	seen     uint32 // every UID up to this one was delivered or is not for it

	mu      sync.Mutex
	queue   []NewMail // after C's buffer, oldest first
	limit   int       // the most messages in queue
	pumping bool      // a pump goroutine moves queue into ch
	closed  bool
	err     error
	stop    chan struct{} // closed with the subscription: ends the pump
}

func newSubscription(afterUID uint32, watchQueue int) *Subscription {
	buf := min(chanBuffer, watchQueue)
	ch := make(chan NewMail, buf)
	return &Subscription{
		C: ch, ch: ch, afterUID: afterUID, ready: make(chan struct{}),
		limit: watchQueue - buf, stop: make(chan struct{}),
	}
}

// UIDValidity is the folder's UIDVALIDITY when the subscription started:
// the UIDs it delivers belong to it.
func (s *Subscription) UIDValidity() uint32 { return s.uidValidity }

// Err tells why C was closed: ErrUIDValidityChanged (the folder was
// recreated: start again), ErrOverflow (the reader fell WatchQueue
// messages behind), ErrClosed (the Client was closed), or the error the
// watcher gave up on (ErrFolderNotFound, ErrAuthFailed...). It is nil
// until the subscription ends, and after Close.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription and closes C after the messages already in
// it; those queued behind them are dropped. The watcher stops WatchLinger
// after its last subscriber left. It is safe to call more than once.
func (s *Subscription) Close() {
	if s.w != nil {
		s.w.remove(s)
	}
	s.finish(nil)
}

// fail ends a subscription that the watcher dropped, one still waiting in
// Subscribe included. The caller holds watch.mu.
func (s *Subscription) fail(err error) {
	if !s.attached && s.readyErr == nil {
		s.readyErr = err
		close(s.ready)
	}
	s.finish(err)
}

// deliver hands m to the reader without ever blocking: into C when it has
// room and nothing waits before m, else into the queue, which a pump
// goroutine empties into C. It reports false when the queue is full too.
func (s *Subscription) deliver(m NewMail) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return true
	}
	if !s.pumping {
		select {
		case s.ch <- m:
			return true
		default:
		}
	}
	if len(s.queue) >= s.limit {
		return false
	}
	s.queue = append(s.queue, m)
	if !s.pumping {
		s.pumping = true
		go s.pump()
	}
	return true
}

// pump moves the queue into C, blocking on the reader. It ends when the
// queue is empty or the subscription closes; then it closes C itself if
// the subscription was closed meanwhile (nothing else sends on C while it
// runs).
func (s *Subscription) pump() {
	for {
		s.mu.Lock()
		if s.closed {
			s.pumping = false
			close(s.ch)
			s.mu.Unlock()
			return
		}
		if len(s.queue) == 0 {
			s.pumping = false
			s.mu.Unlock()
			return
		}
		m := s.queue[0]
		s.mu.Unlock()
		select {
		case s.ch <- m:
			s.mu.Lock()
			if !s.closed {
				s.queue[0] = NewMail{}
				s.queue = s.queue[1:]
			}
			s.mu.Unlock()
		case <-s.stop:
		}
	}
}

// finish closes the subscription once with err (nil: by Close): C closes
// after what its buffer holds, the queue is dropped.
func (s *Subscription) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed, s.err, s.queue = true, err, nil
	close(s.stop)
	if !s.pumping {
		close(s.ch)
	}
}

// WatchNew calls arrived with the UID of each message that reaches folder
// from now on (through the folder's watcher, as Subscribe) until ctx ends,
// which returns nil, or the subscription fails, which returns its error;
// ready is called once it is subscribed. The web inbox's live view uses it.
func (c *Client) WatchNew(ctx context.Context, folder string, ready func(), arrived func(uid uint32)) error {
	_, next, err := c.UIDNext(ctx, folder)
	if err != nil {
		return InFolder(err, folder)
	}
	sub, err := c.Subscribe(ctx, folder, next-1)
	if err != nil {
		return InFolder(err, folder)
	}
	defer sub.Close()
	ready()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-sub.C:
			if !ok {
				return sub.Err()
			}
			arrived(m.UID)
		}
	}
}
