package main

import (
	"math"
	"slices"
	"time"
)

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Summary is what one measured run reports (printed as JSON).
type Summary struct {
	Mode        string         `json:"mode"` // mcp, raw, wait, wait-raw
	Op          string         `json:"op"`   // tool name or raw operation
	Concurrency int            `json:"concurrency"`
	Conns       int            `json:"conns,omitempty"` // raw: IMAP connections
	Calls       int            `json:"calls"`           // measured calls, failed ones included
	OK          int            `json:"ok"`
	Errors      map[string]int `json:"errors"` // by kind: http_429, jsonrpc_-32602, tool_WAIT_TIMEOUT, timeout...
	DurationS   float64        `json:"duration_s"`
	Throughput  float64        `json:"throughput_per_s"` // successful calls per second
	LatencyMS   Latency        `json:"latency_ms"`       // of the successful calls
	CPU         *CPUReport     `json:"cpu,omitempty"`
	RSS         *RSSReport     `json:"rss,omitempty"`
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value such that at least p% of the
// values are at or below it. An empty slice gives 0.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// summarize computes the distribution of ds (which it sorts).
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{
		Min:  ms(ds[0]),
		Mean: ms(sum / time.Duration(len(ds))),
		P50:  ms(percentile(ds, 50)),
		P95:  ms(percentile(ds, 95)),
		P99:  ms(percentile(ds, 99)),
		Max:  ms(ds[len(ds)-1]),
	}
}

// ms converts to milliseconds rounded to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// recorder collects the outcome of the calls of one worker; workers never
// share one, so it needs no lock.
type recorder struct {
	lat    []time.Duration
	errors map[string]int
	calls  int
}

func newRecorder() *recorder { return &recorder{errors: map[string]int{}} }

// add records one call: kind "" is a success with latency d.
func (r *recorder) add(d time.Duration, kind string) {
	r.calls++
	if kind == "" {
		r.lat = append(r.lat, d)
		return
	}
	r.errors[kind]++
}

// merge builds the Summary of several recorders over elapsed wall time.
func merge(recs []*recorder, elapsed time.Duration) Summary {
	s := Summary{Errors: map[string]int{}, DurationS: math.Round(elapsed.Seconds()*1000) / 1000}
	var all []time.Duration
	for _, r := range recs {
		s.Calls += r.calls
		all = append(all, r.lat...)
		for k, v := range r.errors {
			s.Errors[k] += v
		}
	}
	s.OK = len(all)
	if elapsed > 0 {
		s.Throughput = math.Round(float64(s.OK)/elapsed.Seconds()*10) / 10
	}
	s.LatencyMS = summarize(all)
	return s
}

// ratio is a/b rounded to 3 decimals, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(a/b*1000) / 1000
}
