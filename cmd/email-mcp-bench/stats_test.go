package main

import (
	"context"
	"testing"
	"time"
)

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	oneToTen := durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single p50", durations(7), 50, 7 * time.Millisecond},
		{"single p99", durations(7), 99, 7 * time.Millisecond},
		{"p50 of 10", oneToTen, 50, 5 * time.Millisecond},
		{"p90 of 10", oneToTen, 90, 9 * time.Millisecond},
		{"p91 of 10 rounds up", oneToTen, 91, 10 * time.Millisecond},
		{"p95 of 10", oneToTen, 95, 10 * time.Millisecond},
		{"p100 is the max", oneToTen, 100, 10 * time.Millisecond},
		{"tiny p is the min", oneToTen, 0.1, 1 * time.Millisecond},
		{"p50 of 4 is the lower middle", durations(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p75 of 4", durations(1, 2, 3, 4), 75, 3 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(%v, %v) = %v, want %v", tc.name, tc.sorted, tc.p, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	got := summarize(durations(9, 1, 5, 3, 7))
	want := Latency{Min: 1, Mean: 5, P50: 5, P95: 9, P99: 9, Max: 9}
	if got != want {
		t.Errorf("summarize() = %+v, want %+v", got, want)
	}
	if got := summarize(nil); got != (Latency{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
	if got := ms(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("ms(1.5ms) = %v, want 1.5", got)
	}
}

func TestMerge(t *testing.T) {
	a, b := newRecorder(), newRecorder()
	a.add(2*time.Millisecond, "")
	a.add(time.Second, "http_429")
	b.add(4*time.Millisecond, "")
	b.add(0, "http_429")
	b.add(0, "tool_INTERNAL")
	s := merge([]*recorder{a, b}, 2*time.Second)
	if s.Calls != 5 || s.OK != 2 || s.Errors["http_429"] != 2 || s.Errors["tool_INTERNAL"] != 1 {
		t.Errorf("merge() = calls %d ok %d errors %v, want 5, 2, {http_429:2 tool_INTERNAL:1}", s.Calls, s.OK, s.Errors)
	}
	if s.Throughput != 1 || s.LatencyMS.Max != 4 || s.LatencyMS.Min != 2 {
		t.Errorf("merge() = throughput %v, latency %+v; want 1/s, 2..4 ms (failed calls not in the latency)", s.Throughput, s.LatencyMS)
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct{ a, b, want float64 }{{3, 2, 1.5}, {1, 3, 0.333}, {5, 0, 0}} {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRunPhaseBounds(t *testing.T) {
	var calls [4]int
	call := func(_ context.Context, w int) string { calls[w]++; return "" }
	recs := runPhase(context.Background(), 4, 10, 0, call)
	s := merge(recs, time.Second)
	total := 0
	for _, n := range calls {
		total += n
	}
	if s.Calls != 10 || total != 10 {
		t.Errorf("runPhase(count 10) made %d calls (recorded %d), want 10", total, s.Calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s := merge(runPhase(ctx, 2, 0, time.Hour, call), time.Second); s.Calls != 0 {
		t.Errorf("runPhase(cancelled ctx) made %d calls, want 0", s.Calls)
	}
}
