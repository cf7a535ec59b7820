package faultproxy

import (
	"bytes"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// leakWait is how long CheckLeaks lets goroutines of the test wind down
// (connections closing, readers seeing EOF) before it calls them leaked.
const leakWait = 10 * time.Second

// CheckLeaks fails t if goroutines started during the test are still
// running when it ends. Call it first in the test: its check runs in
// t.Cleanup, after every cleanup registered later (servers, clients,
// proxies) has run. It waits up to 10 s for goroutines to end, then lists
// those that did not, with their stacks. It compares goroutine IDs, not
// counts, so goroutines that end during the test do not hide a leak; it
// logs runtime.NumGoroutine before and after.
func CheckLeaks(t testing.TB) {
	t.Helper()
	before := goroutineIDs()
	n := runtime.NumGoroutine()
	t.Cleanup(func() {
		var leaked []string
		deadline := time.Now().Add(leakWait)
		for {
			leaked = newGoroutines(before)
			if len(leaked) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("goroutines: %d before, %d after", n, runtime.NumGoroutine())
		if len(leaked) > 0 {
			t.Errorf("%d goroutines started by the test still run %v after it:\n%s",
				len(leaked), leakWait, strings.Join(leaked, "\n\n"))
		}
	})
}

// goroutineIDs returns the IDs of the running goroutines.
func goroutineIDs() map[uint64]bool {
	ids := make(map[uint64]bool)
	for _, g := range goroutineStacks() {
		if id, ok := goroutineID(g); ok {
			ids[id] = true
		}
	}
	return ids
}

// newGoroutines returns the stacks of running goroutines not in before,
// other than the one asking.
func newGoroutines(before map[uint64]bool) []string {
	var out []string
	stacks := goroutineStacks()
	for i, g := range stacks {
		if i == 0 { // runtime.Stack lists the caller first
			continue
		}
		if id, ok := goroutineID(g); ok && !before[id] {
			out = append(out, g)
		}
	}
	return out
}

// goroutineStacks returns the stack of every goroutine, the caller's first.
func goroutineStacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if s := strings.TrimSpace(string(g)); s != "" {
			out = append(out, s)
		}
	}
	return slices.Clip(out)
}

// goroutineID parses "goroutine 42 [running]:".
func goroutineID(stack string) (uint64, bool) {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return 0, false
	}
	idStr, _, ok := strings.Cut(rest, " ")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(idStr, 10, 64)
	return id, err == nil
}
