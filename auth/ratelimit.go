package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter counts tool calls per API key id: a token bucket that refills
// perMinute tokens a minute and holds half a minute's worth (at least 10),
// so a test suite's burst of calls passes at once while a client that calls
// in a loop is slowed to the rate. It counts what the caller asks it to
// (tool calls), not HTTP requests: the MCP handshake, tools/list, pings and
// notifications must never use up a client's budget.
//
// The number of ids is bounded by the configured keys (unknown keys never
// get past New), so its map does not grow without bound.
type Limiter struct {
	every rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// LimiterOptions configure NewLimiter.
type LimiterOptions struct {
	// PerMinute is the sustained rate per key; <= 0 turns the limit off.
	PerMinute int
	// Now is the clock (tests freeze it); nil is time.Now.
	Now func() time.Time
}

// NewLimiter returns the limiter, or nil when opts.PerMinute <= 0; a nil
// *Limiter allows everything.
func NewLimiter(opts LimiterOptions) *Limiter {
	if opts.PerMinute <= 0 {
		return nil
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Limiter{
		every:   rate.Limit(float64(opts.PerMinute) / 60),
		burst:   Burst(opts.PerMinute),
		now:     opts.Now,
		buckets: map[string]*rate.Limiter{},
	}
}

// Burst is how many calls a key may make at once under perMinute: half a
// minute's worth, at least 10.
func Burst(perMinute int) int {
	return max(perMinute/2, 10)
}

// Take takes one call from id's budget. It returns 0 when the call may run,
// else how long until the next one may (nothing is taken then).
func (l *Limiter) Take(id string) time.Duration {
	if l == nil {
		return 0
	}
	now := l.now()
	res := l.bucket(id).ReserveN(now, 1)
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		return wait
	}
	return 0
}

func (l *Limiter) bucket(id string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[id]
	if !ok {
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[id] = b
	}
	return b
}
