package faultproxy

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// HangMargin is how long after its deadline a call may still return before
// Load calls it hung. It is a hang detector, not a timing assertion: a
// call bounded by its context returns long before.
const HangMargin = 5 * time.Second

// hangMargin is HangMargin; this package's tests shorten it.
var hangMargin = HangMargin

// failPause is how long a worker of Load waits after a call that did not
// answer "ok" before its next call, as a client that retries does, rather
// than spinning on a pool that fails fast while the server is away.
const failPause = 20 * time.Millisecond

// Call is one call of a load: it runs under ctx (which has the load's
// deadline) and returns its outcome, "ok" or an error code or kind. It may
// report unexpected outcomes with t.Errorf (t is safe for concurrent use).
type Call func(ctx context.Context, worker, n int) string

// Tally counts the calls of a load by outcome. Its methods are safe for
// concurrent use.
type Tally struct {
	mu       sync.Mutex
	calls    int
	hung     int
	outcomes map[string]int
}

func (ty *Tally) add(outcome string) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	if ty.outcomes == nil {
		ty.outcomes = make(map[string]int)
	}
	ty.calls++
	ty.outcomes[outcome]++
}

func (ty *Tally) addHung() {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	ty.calls++
	ty.hung++
}

// Calls is the number of calls made, hung ones included.
func (ty *Tally) Calls() int {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	return ty.calls
}

// Hung is the number of calls that had not returned HangMargin after their
// deadline.
func (ty *Tally) Hung() int {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	return ty.hung
}

// Count is the number of calls with outcome.
func (ty *Tally) Count(outcome string) int {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	return ty.outcomes[outcome]
}

// Outcomes returns a copy of the counts by outcome.
func (ty *Tally) Outcomes() map[string]int {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	return maps.Clone(ty.outcomes)
}

// String lists the outcomes, sorted: "CONNECTION_FAILED=12 ok=300".
func (ty *Tally) String() string {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(ty.outcomes)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, ty.outcomes[k]))
	}
	return strings.Join(parts, " ")
}

// Load runs workers goroutines that each make calls one after the other,
// every call under a context with the given deadline, until stop is
// closed; it returns when every worker has finished its last call. After a
// call that did not answer "ok", a worker pauses 20 ms. A call
// that has not returned HangMargin after its deadline is counted as hung
// and fails t; its worker gives up (the call's goroutine is left behind,
// which CheckLeaks reports too).
func Load(t testing.TB, workers int, deadline time.Duration, stop <-chan struct{}, call Call) *Tally {
	t.Helper()
	ty := &Tally{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var outcome string
				if !watch(t, ty, deadline, func(ctx context.Context) string {
					outcome = call(ctx, w, n)
					return outcome
				}) {
					return
				}
				if outcome != "ok" && !pause(stop, failPause) {
					return
				}
			}
		})
	}
	wg.Wait()
	return ty
}

// watch runs one call under deadline and its watchdog; false when it hung.
func watch(t testing.TB, ty *Tally, deadline time.Duration, call func(context.Context) string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	done := make(chan string, 1)
	start := time.Now()
	go func() { done <- call(ctx) }()
	dog := time.NewTimer(deadline + hangMargin)
	defer dog.Stop()
	select {
	case outcome := <-done:
		ty.add(outcome)
		return true
	case <-dog.C:
		ty.addHung()
		t.Errorf("a call hung: no answer %v after it started (deadline %v)", time.Since(start).Round(time.Millisecond), deadline)
		return false
	}
}

// Once runs one call under deadline and the watchdog of Load, and counts
// it in ty (which may be nil).
func Once(t testing.TB, ty *Tally, deadline time.Duration, call func(ctx context.Context) string) string {
	t.Helper()
	if ty == nil {
		ty = &Tally{}
	}
	var outcome string
	ok := watch(t, ty, deadline, func(ctx context.Context) string {
		outcome = call(ctx)
		return outcome
	})
	if !ok {
		return "hung"
	}
	return outcome
}

// Recover calls call until it answers "ok", at most attempts times with
// pause between attempts, each under deadline and the watchdog, and counts
// the attempts in ty (which may be nil). It returns the number of attempts
// it took, and fails t when none succeeded: what a client that retries
// sees once a fault is over.
func Recover(t testing.TB, ty *Tally, attempts int, pause, deadline time.Duration, call func(ctx context.Context) string) int {
	t.Helper()
	last := ""
	for i := 1; i <= attempts; i++ {
		if last = Once(t, ty, deadline, call); last == "ok" {
			return i
		}
		time.Sleep(pause)
	}
	t.Errorf("no call succeeded in %d attempts %v apart after the fault; the last answered %s", attempts, pause, last)
	return attempts
}

// pause waits d; false when stop closed meanwhile.
func pause(stop <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}
