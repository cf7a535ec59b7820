// Package hourly counts events per key in a sliding hour: send_test_code's
// samples (package inbox), and the process's own share of
// SEND_MAX_PER_HOUR (a fast refusal in front of the account's count in
// the mailbox). It lives in the process: a restart forgets it, and
// replicas count apart.
package hourly

import (
	"sync"
	"time"
)

// Limit counts events per key in a sliding hour. The zero value is ready.
type Limit struct {
	mu     sync.Mutex
	events map[string][]time.Time // per key, oldest first
}

// Take records an event at now for every key when all are under their
// limits and returns 0; otherwise it records nothing and returns how long
// until the fullest key has room again.
func (l *Limit) Take(now time.Time, limits map[string]int) (wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.events == nil {
		l.events = map[string][]time.Time{}
	}
	for key, limit := range limits {
		recent := l.events[key]
		for len(recent) > 0 && now.Sub(recent[0]) >= time.Hour {
			recent = recent[1:]
		}
		l.events[key] = recent
		if len(recent) >= limit {
			wait = max(wait, time.Hour-now.Sub(recent[len(recent)-limit]))
		}
	}
	if wait > 0 {
		return wait
	}
	for key := range limits {
		l.events[key] = append(l.events[key], now)
	}
	return 0
}

// Forget removes one event recorded at t under key (an event that turned
// out not to count).
func (l *Limit) Forget(key string, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.events[key]
	for i := len(ev) - 1; i >= 0; i-- {
		if ev[i].Equal(t) {
			l.events[key] = append(ev[:i], ev[i+1:]...)
			return
		}
	}
}
