package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// chain is one test inbox and the waits a client makes for its code: the
// first with the caller's since, retries with next_since when an error
// carries one, else the same since again.
type chain struct {
	inbox, code, form, since string
	delivered                time.Time // end of LMTP DATA
	otp, id, from            string
	obtained                 time.Time
	outcomes                 []string
	failed                   string
}

// waitsReport is what the wait phase found.
type waitsReport struct {
	Inboxes          int            `json:"inboxes"`
	CreateFailures   int            `json:"create_failures"`
	CodesDelivered   int            `json:"codes_delivered"`
	CodesObtained    int            `json:"codes_obtained"`
	CodesLost        int            `json:"codes_lost"`
	Wrong            int            `json:"wrong"`
	Duplicates       int            `json:"duplicates"`
	Retried          int            `json:"waits_retried"`
	RetriedObtained  int            `json:"retried_then_obtained"`
	Outcomes         map[string]int `json:"wait_outcomes"`
	LostBySinceForm  map[string]int `json:"lost_by_since_form"`
	LatencyP50ms     float64        `json:"otp_latency_p50_ms"`
	LatencyP95ms     float64        `json:"otp_latency_p95_ms"`
	LatencyMaxms     float64        `json:"otp_latency_max_ms"`
	LoadCalls        int            `json:"load_calls"`
	LoadOutcomes     map[string]int `json:"load_outcomes"`
	IMAPConnsWaiting map[string]int `json:"imap_conns_with_waits"`
	Kills            []string       `json:"kills"`
	ObtainedFrom     map[string]int `json:"obtained_from"`
	LostExamples     []string       `json:"lost_examples,omitempty"`
}

// createInboxes makes n test inboxes through the load balancer, 16 at once.
func (s *setup) createInboxes(ctx context.Context, n int) ([]*chain, int) {
	chains := make([]*chain, n)
	failures := 0
	var mu sync.Mutex
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var o outcome
			for attempt := 0; attempt < 3; attempt++ {
				o = s.lb.call(ctx, 30*time.Second, "create_inbox", map[string]any{"label": fmt.Sprintf("scale %d", i)})
				if o.ok() {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if !o.ok() {
				failures++
				return
			}
			chains[i] = &chain{inbox: str(o.Result, "address"), code: strconv.Itoa(100000 + i*2953)}
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(chains, func(c *chain) bool { return c == nil }), failures
}

// pinSince gives each chain its caller's since, in the three forms by turn:
// RFC 3339, unix seconds, and the next_since of a short wait (a message id).
func (s *setup) pinSince(ctx context.Context, chains []*chain) {
	t0 := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i, c := range chains {
		switch i % 3 {
		case 0:
			c.form, c.since = "rfc3339", t0.UTC().Format(time.RFC3339)
		case 1:
			c.form, c.since = "unix", strconv.FormatInt(t0.Unix(), 10)
		default:
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				o := s.lb.call(ctx, 30*time.Second, "wait_for_otp", map[string]any{"inbox_id": c.inbox, "timeout": 0.2})
				c.form, c.since = "next_since", o.NextSince
				if o.NextSince == "" {
					c.form, c.since = "rfc3339 (no next_since: "+o.Kind+")", t0.UTC().Format(time.RFC3339)
				}
			}()
		}
	}
	wg.Wait()
}

// wait runs one chain until its code comes, a non-retryable error, 8
// attempts, or the deadline.
func (s *setup) wait(ctx context.Context, c *chain, deadline time.Time) {
	since := c.since
	for attempt := 0; attempt < 8 && time.Now().Before(deadline); attempt++ {
		o := s.lb.call(ctx, 75*time.Second, "wait_for_otp", map[string]any{"inbox_id": c.inbox, "timeout": 60, "since": since})
		c.outcomes = append(c.outcomes, o.Kind)
		if o.ok() {
			c.otp, c.id, c.obtained, c.from = str(o.Result, "otp"), str(o.Result, "id"), time.Now(), s.replicaName(o.Upstream)
			return
		}
		if o.NextSince != "" {
			since = o.NextSince
		}
		if _, tool := codes[o.Kind]; tool && !o.Retryable {
			c.failed = o.Kind
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// codes are the tool error codes of DESIGN.md (anything else is HTTP or
// transport).
var codes = map[string]bool{}

func init() {
	for _, c := range []string{"INVALID_ARGUMENT", "AUTH_FAILED", "CONNECTION_FAILED", "CONNECTION_TIMEOUT", "TLS_FAILED",
		"FOLDER_NOT_FOUND", "MESSAGE_NOT_FOUND", "ATTACHMENT_NOT_FOUND", "ATTACHMENT_TOO_LARGE", "PATH_OUTSIDE_WORKSPACE",
		"SEND_REJECTED", "WAIT_TIMEOUT", "RATE_LIMITED", "READ_ONLY", "INTERNAL", "RECIPIENT_NOT_ALLOWED", "CANCELLED", "NO_CODE"} {
		codes[c] = true
	}
}

// otpMail is the message an app under test sends to an inbox.
func otpMail(to, code string, i int) []byte {
	return []byte(fmt.Sprintf("From: App <app@example.test>\r\nTo: %s\r\nSubject: Your sign-in code\r\nMessage-ID: <scale-otp-%d-%s@example.test>\r\nDate: %s\r\n\r\nYour verification code is %s.\r\nIt expires in 10 minutes.\r\n",
		to, i, code, time.Now().UTC().Format(time.RFC1123Z), code))
}

// waitPhase: n inboxes, n concurrent waits, the codes delivered 20 a
// second, replica 2 SIGTERMed and replica 3 SIGKILLed during the delivery
// (each started again a second later), with searches and reads alongside.
func (s *setup) waitPhase(ctx context.Context, n int, uids []string, rep *report) waitsReport {
	wr := waitsReport{Outcomes: map[string]int{}, LostBySinceForm: map[string]int{}, LoadOutcomes: map[string]int{}, ObtainedFrom: map[string]int{}}
	chains, failures := s.createInboxes(ctx, n)
	wr.Inboxes, wr.CreateFailures = len(chains), failures
	s.pinSince(ctx, chains)

	stopLoad := make(chan struct{})
	loadDone := s.backgroundLoad(ctx, uids, stopLoad, &wr)

	deadline := time.Now().Add(150 * time.Second)
	var wg sync.WaitGroup
	for _, c := range chains {
		wg.Add(1)
		go func() { defer wg.Done(); s.wait(ctx, c, deadline) }()
	}
	time.Sleep(3 * time.Second) // the waits reach the replicas and register
	wr.IMAPConnsWaiting = s.conns()

	var old []chan struct{}
	for i, c := range chains {
		if ctx.Err() != nil {
			break
		}
		switch i {
		case len(chains) * 4 / 15:
			old = append(old, s.bounce(1, syscall.SIGTERM, &wr))
		case len(chains) * 9 / 15:
			old = append(old, s.bounce(2, syscall.SIGKILL, &wr))
		}
		if err := s.lmtp.deliver("app@example.test", []string{c.inbox}, otpMail(c.inbox, c.code, i)); err != nil {
			fmt.Fprintln(os.Stderr, "scale: LMTP delivery failed:", err)
			continue
		}
		c.delivered = time.Now()
		wr.CodesDelivered++
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	close(stopLoad)
	<-loadDone
	for _, d := range old {
		select {
		case <-d:
		case <-time.After(30 * time.Second):
		}
	}
	wr.tally(chains)
	return wr
}

// bounce signals replica i and starts it again a second later, on the same
// port (a SIGTERMed replica has closed its listener and drains meanwhile).
// It returns the old process's exit channel.
func (s *setup) bounce(i int, sig syscall.Signal, wr *waitsReport) chan struct{} {
	r := s.reps[i]
	pid := r.pid()
	done := r.signal(sig)
	wr.Kills = append(wr.Kills, fmt.Sprintf("replica%d pid %d: %s at %s", r.n, pid, sig, time.Now().UTC().Format("15:04:05.000")))
	go func() {
		if sig == syscall.SIGKILL {
			<-done
		}
		time.Sleep(time.Second)
		if err := r.start(); err != nil {
			fmt.Fprintln(os.Stderr, "scale: restart:", err)
		}
	}()
	return done
}

// backgroundLoad runs 3 clients of searches and reads until stop.
func (s *setup) backgroundLoad(ctx context.Context, uids []string, stop chan struct{}, wr *waitsReport) chan struct{} {
	done := make(chan struct{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for k := 0; k < 100000; k++ {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				var o outcome
				if k%2 == 0 {
					o = s.lb.call(ctx, 40*time.Second, "search_emails", map[string]any{"subject": "scale seed", "limit": 10})
				} else {
					o = s.lb.call(ctx, 40*time.Second, "read_email", map[string]any{"uid": uids[rng.IntN(len(uids))]})
				}
				mu.Lock()
				wr.LoadCalls++
				wr.LoadOutcomes[o.Kind]++
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

// tally counts codes obtained, lost, wrong and duplicated, and the latency
// from the end of LMTP DATA to the result through the load balancer.
func (wr *waitsReport) tally(chains []*chain) {
	seen := map[string]int{}
	var lat []float64
	for _, c := range chains {
		for _, k := range c.outcomes {
			wr.Outcomes[k]++
		}
		if len(c.outcomes) > 1 {
			wr.Retried++
		}
		if c.delivered.IsZero() {
			continue
		}
		switch {
		case c.otp == "":
			wr.CodesLost++
			wr.LostBySinceForm[c.form]++
			if len(wr.LostExamples) < 5 {
				wr.LostExamples = append(wr.LostExamples, fmt.Sprintf("%s since=%s (%s): %v %s", c.inbox, c.since, c.form, c.outcomes, c.failed))
			}
		case c.otp != c.code:
			wr.Wrong++
		default:
			wr.CodesObtained++
			wr.ObtainedFrom[c.from]++
			if len(c.outcomes) > 1 {
				wr.RetriedObtained++
			}
			lat = append(lat, float64(c.obtained.Sub(c.delivered).Microseconds())/1000)
		}
		if c.id != "" {
			seen[c.id]++
		}
	}
	for _, k := range seen {
		if k > 1 {
			wr.Duplicates += k - 1
		}
	}
	slices.Sort(lat)
	wr.LatencyP50ms, wr.LatencyP95ms = percentile(lat, 0.50), percentile(lat, 0.95)
	if len(lat) > 0 {
		wr.LatencyMaxms = lat[len(lat)-1]
	}
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return float64(int(sorted[i]*10)) / 10
}
