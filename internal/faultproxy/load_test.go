package faultproxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/internal/faultproxy"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func (r *recorder) failed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors)
}

func TestLoad(t *testing.T) {
	// A margin far above a loaded machine's scheduling delays: a call that
	// honours its 20 ms deadline is never taken for hung; one that blocks
	// until the end of the test always is.
	// The hung calls' goroutines end when release closes, at the end of
	// the test: CheckLeaks waits for them (their tail outlives the call).
	faultproxy.CheckLeaks(t)
	defer faultproxy.SetHangMargin(time.Second)()
	release := make(chan struct{})
	tests := []struct {
		name     string
		call     faultproxy.Call
		wantHung bool
	}{
		{"answers", func(ctx context.Context, w, n int) string {
			if n%2 == 0 {
				return "ok"
			}
			return "CONNECTION_FAILED"
		}, false},
		{"honours its deadline", func(ctx context.Context, w, n int) string {
			<-ctx.Done()
			return "CONNECTION_TIMEOUT"
		}, false},
		{"hangs", func(ctx context.Context, w, n int) string {
			<-release // past deadline + margin, until the test ends
			return "late"
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			stop := make(chan struct{})
			time.AfterFunc(100*time.Millisecond, func() { close(stop) })
			ty := faultproxy.Load(rec, 4, 20*time.Millisecond, stop, tt.call)
			if got := ty.Hung() > 0; got != tt.wantHung || (rec.failed() > 0) != tt.wantHung {
				t.Errorf("Hung() = %d, errors %d; want hung %v", ty.Hung(), rec.failed(), tt.wantHung)
			}
			sum := ty.Hung()
			for _, n := range ty.Outcomes() {
				sum += n
			}
			if ty.Calls() < 4 || sum != ty.Calls() {
				t.Errorf("Calls() = %d, outcomes %s + %d hung: want at least one call per worker, all counted", ty.Calls(), ty, ty.Hung())
			}
		})
	}
	close(release)
}

func TestRecover(t *testing.T) {
	tests := []struct {
		name      string
		okAt      int // the attempt that succeeds; 0: none
		attempts  int
		wantTries int
		wantFail  bool
	}{
		{"first", 1, 5, 1, false},
		{"third", 3, 5, 3, false},
		{"never", 0, 4, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			ty := &faultproxy.Tally{}
			n := 0
			got := faultproxy.Recover(rec, ty, tt.attempts, time.Millisecond, time.Second, func(context.Context) string {
				n++
				if n == tt.okAt {
					return "ok"
				}
				return "CONNECTION_FAILED"
			})
			if got != tt.wantTries || (rec.failed() > 0) != tt.wantFail || ty.Calls() != tt.wantTries {
				t.Errorf("Recover = %d (calls %d, errors %d), want %d, failed %v", got, ty.Calls(), rec.failed(), tt.wantTries, tt.wantFail)
			}
		})
	}
}
