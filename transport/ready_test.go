package transport

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadyShared: /ready needs no key, so its checks (an IMAP NOOP, an SMTP
// connection) run at most once per readyTTL, and requests that come while
// they run share that run.
func TestReadyShared(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	failing := atomic.Bool{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	rc := &readyCache{now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }, checks: []ReadyCheck{{Name: "imap", Check: func(ctx context.Context) error {
		runs.Add(1)
		<-release
		if failing.Load() {
			return errors.New("down")
		}
		return nil
	}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Ten requests while the first run is blocked: one run for all.
	codes := make(chan int, 10)
	for range 10 {
		go func() { code, _ := rc.get(ctx); codes <- code }()
	}
	for runs.Load() == 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range 10 {
		if code := <-codes; code != http.StatusOK {
			t.Errorf("code = %d, want 200", code)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("checks ran %d times for 10 requests during one run, want 1", n)
	}
	// Within readyTTL the answer is reused, after it the checks run again.
	failing.Store(true)
	if code, _ := rc.get(ctx); code != http.StatusOK || runs.Load() != 1 {
		t.Errorf("within readyTTL: code %d after %d runs, want the cached 200 after 1", code, runs.Load())
	}
	clock.Lock()
	now = now.Add(readyTTL)
	clock.Unlock()
	if code, body := rc.get(ctx); code != http.StatusServiceUnavailable || runs.Load() != 2 {
		t.Errorf("after readyTTL: code %d %v after %d runs, want 503 after 2", code, body, runs.Load())
	}
}
