package main

import (
	"context"
)

// mcpOp returns the op that calls o.Tool with o.Args over c.
func mcpOp(c *mcpClient, o *loadOptions) op {
	return func(ctx context.Context, _ int) string {
		_, err := c.call(ctx, o.Tool, o.Args)
		if kind := errKind(err); !o.Accept[kind] {
			return kind
		}
		return ""
	}
}

// runMCP calls o.Tool with o.Args as a load and summarises it; with o.PID
// it reports the server's processor time and RSS growth over the measured
// phase.
func runMCP(ctx context.Context, o *loadOptions) (Summary, error) {
	c := newMCPClient(o.URL, o.Key, o.Plan.Concurrency, o.Timeout)
	defer c.close()
	call := mcpOp(c, o)
	p := o.Plan
	var w *rssWatch
	if o.PID > 0 {
		// The warmup runs before the watch starts: only the measured calls
		// count in the growth.
		if p.Warmup > 0 {
			runPhase(ctx, p.Concurrency, p.Warmup, 0, call)
			p.Warmup = 0
		}
		var err error
		if w, err = watchRSS(o.PID); err != nil {
			return Summary{}, err
		}
		defer w.close()
	}
	s := runPlan(ctx, p, o.PID, call)
	s.Mode, s.Op = "mcp", o.Tool
	if w != nil {
		s.RSS = w.finish()
	}
	return s, nil
}
