package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// throughput is the search load through nginx over the first n replicas.
type throughput struct {
	Replicas  int            `json:"replicas"`
	Workers   int            `json:"workers"`
	Seconds   float64        `json:"seconds"`
	Calls     int            `json:"calls"`
	OK        int            `json:"ok"`
	PerSecond float64        `json:"searches_per_second"`
	P50ms     float64        `json:"p50_ms"`
	P95ms     float64        `json:"p95_ms"`
	NotOK     map[string]int `json:"not_ok,omitempty"`
}

// searchLoad runs workers clients of search_emails without pause for d.
func searchLoad(ctx context.Context, c *client, n, workers int, d time.Duration) throughput {
	t := throughput{Replicas: n, Workers: workers, NotOK: map[string]int{}}
	var mu sync.Mutex
	var lat []float64
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(d)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 1_000_000 && time.Now().Before(end) && ctx.Err() == nil; k++ {
				o := c.call(ctx, 30*time.Second, "search_emails", map[string]any{"subject": "scale seed", "limit": 10})
				mu.Lock()
				t.Calls++
				if o.ok() {
					t.OK++
					lat = append(lat, float64(o.Elapsed.Microseconds())/1000)
				} else {
					t.NotOK[o.Kind]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Seconds = time.Since(start).Seconds()
	t.PerSecond = float64(int(float64(t.OK)/t.Seconds*10)) / 10
	slices.Sort(lat)
	t.P50ms, t.P95ms = percentile(lat, 0.5), percentile(lat, 0.95)
	return t
}

// sendsReport: SEND_MAX_PER_HOUR=5 on each of three replicas, n sends.
type sendsReport struct {
	Attempted int            `json:"attempted"`
	Allowed   int            `json:"allowed"`
	Delivered int64          `json:"delivered_by_relay"`
	Outcomes  map[string]int `json:"outcomes"`
	ByReplica map[string]int `json:"allowed_by_replica"`
	Answered  map[string]int `json:"answered_by_replica"`
}

func (s *setup) sendPhase(ctx context.Context, n int) sendsReport {
	sr := sendsReport{Attempted: n, Outcomes: map[string]int{}, ByReplica: map[string]int{}, Answered: map[string]int{}}
	before := s.relay.delivered.Load()
	to := strings.Replace(s.account, "@", "+sendcap@", 1)
	for i := range n {
		o := s.lb.call(ctx, 60*time.Second, "send_email", map[string]any{
			"to": []string{to}, "subject": fmt.Sprintf("scale send cap %d", i), "body": "one of twenty sends through the load balancer",
		})
		sr.Outcomes[o.Kind]++
		sr.Answered[s.replicaName(o.Upstream)]++
		if o.ok() {
			sr.Allowed++
			sr.ByReplica[s.replicaName(o.Upstream)]++
		}
	}
	sr.Delivered = s.relay.delivered.Load() - before
	return sr
}

// report is the scale test's result, printed as JSON and as a summary.
type report struct {
	Replicas       int            `json:"replicas"`
	Account        string         `json:"account"`
	PoolSize       int            `json:"imap_pool_size"`
	SendCapPerHour int            `json:"send_max_per_hour"`
	CallsMade      int64          `json:"calls_made"`
	SSENaive       sseReport      `json:"sse_round_robin"`
	SSERecipe      sseReport      `json:"sse_recipe"`
	Throughput     []throughput   `json:"search_throughput"`
	IMAPConnsIdle  map[string]int `json:"imap_conns_idle"`
	IMAPConnsAfter map[string]int `json:"imap_conns_after_restarts"`
	SecretsInLogs  int            `json:"secrets_in_logs"`
	Waits          waitsReport    `json:"waits"`
	Sends          sendsReport    `json:"sends"`
	Failures       []string       `json:"failures"`
	Notes          []string       `json:"notes,omitempty"`
}

// check lists the properties that failed.
func (r *report) check(strictCap bool) {
	fail := func(f string, a ...any) { r.Failures = append(r.Failures, fmt.Sprintf(f, a...)) }
	w := r.Waits
	if r.SSERecipe.Started != r.SSERecipe.Sessions {
		fail("legacy SSE through the recipe: %d of %d sessions started", r.SSERecipe.Started, r.SSERecipe.Sessions)
	}
	if w.CreateFailures > 0 {
		fail("%d create_inbox calls failed", w.CreateFailures)
	}
	if w.CodesDelivered != w.Inboxes {
		fail("%d of %d codes delivered", w.CodesDelivered, w.Inboxes)
	}
	if w.CodesLost > 0 {
		fail("%d codes lost (by since form: %v)", w.CodesLost, w.LostBySinceForm)
	}
	if w.Wrong > 0 {
		fail("%d waits returned another inbox's code", w.Wrong)
	}
	if w.Duplicates > 0 {
		fail("%d messages returned to more than one wait", w.Duplicates)
	}
	if len(w.Kills) != 2 {
		fail("the kills did not happen: %v", w.Kills)
	}
	for _, t := range r.Throughput {
		if t.OK == 0 || len(t.NotOK) > 0 {
			fail("searches with %d replicas: %d ok, failures %v", t.Replicas, t.OK, t.NotOK)
		}
	}
	// Each replica holds at most its pool and one watcher (every wait here
	// is on INBOX): more would be a leak, and breaks the budget of README.
	for name, m := range map[string]map[string]int{"with the waits": w.IMAPConnsWaiting, "after the restarts": r.IMAPConnsAfter} {
		for rep, n := range m {
			if n > r.PoolSize+1 {
				fail("%s holds %d IMAP connections %s, over IMAP_POOL_SIZE+1 = %d", rep, n, name, r.PoolSize+1)
			}
		}
	}
	if r.SecretsInLogs > 0 {
		fail("%d replica log files hold the API key or the account password", r.SecretsInLogs)
	}
	if len(r.Sends.Answered) < r.Replicas {
		fail("the sends reached only %v: the cap across replicas was not exercised", r.Sends.Answered)
	}
	if r.Sends.Allowed != r.SendCapPerHour || r.Sends.Delivered != int64(r.SendCapPerHour) {
		msg := fmt.Sprintf("send cap across replicas: %d allowed, %d delivered, want %d", r.Sends.Allowed, r.Sends.Delivered, r.SendCapPerHour)
		if strictCap {
			fail("%s", msg)
		} else {
			r.Notes = append(r.Notes, msg+" (not a failure: EMAIL_MCP_SCALE_STRICT_CAP=0)")
		}
	}
}

func (r *report) summary() string {
	var b strings.Builder
	w := r.Waits
	fmt.Fprintf(&b, "scale: %d replicas over %s behind nginx; %d tool calls made\n", r.Replicas, r.Account, r.CallsMade)
	fmt.Fprintf(&b, "scale: legacy SSE: round robin %d/%d sessions started, recipe (hash $remote_addr) %d/%d\n",
		r.SSENaive.Started, r.SSENaive.Sessions, r.SSERecipe.Started, r.SSERecipe.Sessions)
	for _, t := range r.Throughput {
		fmt.Fprintf(&b, "scale: searches through nginx, %d replica(s), %d clients: %.1f/s (p50 %.1f ms, p95 %.1f ms)\n",
			t.Replicas, t.Workers, t.PerSecond, t.P50ms, t.P95ms)
	}
	fmt.Fprintf(&b, "scale: waits: %d inboxes, %d codes delivered, %d obtained, %d lost, %d wrong, %d duplicates; %d waits retried (%d then obtained)\n",
		w.Inboxes, w.CodesDelivered, w.CodesObtained, w.CodesLost, w.Wrong, w.Duplicates, w.Retried, w.RetriedObtained)
	fmt.Fprintf(&b, "scale: OTP latency end of DATA -> result through nginx: p50 %.1f ms, p95 %.1f ms, max %.1f ms\n",
		w.LatencyP50ms, w.LatencyP95ms, w.LatencyMaxms)
	fmt.Fprintf(&b, "scale: wait outcomes %v; codes obtained from %v; kills %v\n", w.Outcomes, w.ObtainedFrom, w.Kills)
	fmt.Fprintf(&b, "scale: searches and reads alongside: %d calls, %v\n", w.LoadCalls, w.LoadOutcomes)
	fmt.Fprintf(&b, "scale: IMAP connections per replica (ss -tnp): idle %v, with %d waits %v, after the restarts %v (IMAP_POOL_SIZE=%d)\n",
		r.IMAPConnsIdle, w.Inboxes, w.IMAPConnsWaiting, r.IMAPConnsAfter, r.PoolSize)
	fmt.Fprintf(&b, "scale: send cap %d/hour on each replica, %d sends: %d allowed, %d delivered, %v; answered by %v, allowed by %v\n",
		r.SendCapPerHour, r.Sends.Attempted, r.Sends.Allowed, r.Sends.Delivered, r.Sends.Outcomes, r.Sends.Answered, r.Sends.ByReplica)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "scale: note: %s\n", n)
	}
	return b.String()
}
