package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// op runs one call for worker w and returns "" on success or the kind of
// its failure (see Summary.Errors).
type op func(ctx context.Context, w int) string

// plan says how much load to run: Count calls in all, or calls for
// Duration when Count is 0, by Concurrency workers, after Warmup calls that
// are not measured.
type plan struct {
	Concurrency int
	Count       int
	Duration    time.Duration
	Warmup      int
}

// runPlan runs the warmup, then the measured phase, and summarises the
// latter with the processor time it cost this process and, when pid is
// not 0, the server. ctx ends both early (what ran so far is reported).
func runPlan(ctx context.Context, p plan, pid int, call op) Summary {
	if p.Warmup > 0 {
		runPhase(ctx, p.Concurrency, p.Warmup, 0, call)
	}
	cpu := markCPU(pid)
	start := time.Now()
	recs := runPhase(ctx, p.Concurrency, p.Count, p.Duration, call)
	s := merge(recs, time.Since(start))
	s.CPU = cpu.used().report(s.OK)
	s.Concurrency = p.Concurrency
	return s
}

// runPhase runs c workers that share count calls (count > 0) or call until
// d has passed; every loop ends with ctx too.
func runPhase(ctx context.Context, c, count int, d time.Duration, call op) []*recorder {
	var issued atomic.Int64
	next := func() bool { return issued.Add(1) <= int64(count) }
	if count <= 0 {
		deadline := time.Now().Add(d)
		next = func() bool { return time.Now().Before(deadline) }
	}
	recs := make([]*recorder, c)
	var wg sync.WaitGroup
	for w := range c {
		recs[w] = newRecorder()
		wg.Go(func() {
			for ctx.Err() == nil && next() {
				t0 := time.Now()
				kind := call(ctx, w)
				recs[w].add(time.Since(t0), kind)
			}
		})
	}
	wg.Wait()
	return recs
}
