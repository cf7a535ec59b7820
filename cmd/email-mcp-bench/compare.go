package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Comparison is the same operation measured through MCP and with the bare
// IMAP client.
type Comparison struct {
	MCP    Summary `json:"mcp"`
	Raw    Summary `json:"raw"`
	Slices int     `json:"slices"` // the two sides ran alternately, in this many slices each
	Ratio  struct {
		P50        float64 `json:"p50"`        // MCP p50 / raw p50: 1.3 means 30% slower
		P95        float64 `json:"p95"`        // MCP p95 / raw p95
		Throughput float64 `json:"throughput"` // MCP calls/s / raw calls/s: 0.8 means 80% of raw
	} `json:"ratio_mcp_over_raw"`
}

// compareOptions are both sides of a comparison.
type compareOptions struct {
	mcp    *loadOptions
	raw    *rawOptions
	slices int
}

// parseCompare parses the flags of `compare`: the MCP flags, the IMAP
// flags and one plan for both. The tool and its arguments follow -op:
// search_emails {folder, limit} or read_email {folder, uid}.
func parseCompare(args []string, stderr io.Writer, profile *string) (*compareOptions, error) {
	o := &compareOptions{mcp: &loadOptions{}, raw: &rawOptions{}}
	fs := newFlagSet("compare", stderr)
	mcpFlags(fs, o.mcp)
	imapFlags(fs, o.raw)
	planFlags(fs, &o.mcp.Plan, profile)
	fs.IntVar(&o.slices, "slices", 4, "run the sides alternately in this many slices each (fairer when the machine's load changes)")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if err := checkPlan(&o.mcp.Plan); err != nil {
		return nil, err
	}
	if p := o.mcp.Plan; o.slices < 1 || o.slices > 100 || (p.Count > 0 && p.Count < o.slices) {
		return nil, errors.New("-slices: want 1..100 and at most -n")
	}
	m, r := o.mcp, o.raw
	r.Plan, r.Timeout, r.AllowRemote = m.Plan, m.Timeout, m.AllowRemote
	if err := checkRaw(r, m.Plan.Concurrency); err != nil {
		return nil, err
	}
	m.Tool, m.Args = toolFor(r)
	return o, checkMCP(m)
}

// toolFor is the tool call that does r's operation.
func toolFor(r *rawOptions) (string, json.RawMessage) {
	if r.Op == "read" {
		b, _ := json.Marshal(map[string]any{"folder": r.Folder, "uid": r.UID})
		return "read_email", b
	}
	b, _ := json.Marshal(map[string]any{"folder": r.Folder, "limit": r.Limit})
	return "search_emails", b
}

// side is one of the two things compared, with what its slices measured.
type side struct {
	call    op
	pid     int
	recs    []*recorder
	elapsed time.Duration
	cpu     cpuUse
}

// run measures one slice.
func (sd *side) run(ctx context.Context, c, count int, d time.Duration) {
	m := markCPU(sd.pid)
	t0 := time.Now()
	sd.recs = append(sd.recs, runPhase(ctx, c, count, d, sd.call)...)
	sd.elapsed += time.Since(t0)
	sd.cpu = sd.cpu.add(m.used())
}

// summary merges the slices.
func (sd *side) summary(c int) Summary {
	s := merge(sd.recs, sd.elapsed)
	s.CPU, s.Concurrency = sd.cpu.report(s.OK), c
	return s
}

// runCompare warms both sides up, then runs them alternately, slice by
// slice (MCP first in even slices, raw first in odd ones), so that a
// change in the machine's load hits both alike.
func runCompare(ctx context.Context, o *compareOptions) (*Comparison, error) {
	c := newMCPClient(o.mcp.URL, o.mcp.Key, o.mcp.Plan.Concurrency, o.mcp.Timeout)
	defer c.close()
	pool, err := newRawPool(ctx, o.raw)
	if err != nil {
		return nil, fmt.Errorf("raw: %w", err)
	}
	defer pool.close()
	p := o.mcp.Plan
	mcp, raw := &side{call: mcpOp(c, o.mcp), pid: o.mcp.PID}, &side{call: rawOp(pool, o.raw)}
	for _, sd := range []*side{mcp, raw} {
		runPhase(ctx, p.Concurrency, p.Warmup, 0, sd.call)
	}
	for i := range o.slices {
		count := p.Count / o.slices
		if i < p.Count%o.slices {
			count++
		}
		order := []*side{mcp, raw}
		if i%2 == 1 {
			order = []*side{raw, mcp}
		}
		for _, sd := range order {
			sd.run(ctx, p.Concurrency, count, p.Duration/time.Duration(o.slices))
		}
	}
	cmp := &Comparison{MCP: mcp.summary(p.Concurrency), Raw: raw.summary(p.Concurrency), Slices: o.slices}
	cmp.MCP.Mode, cmp.MCP.Op = "mcp", o.mcp.Tool
	cmp.Raw.Mode, cmp.Raw.Op, cmp.Raw.Conns = "raw", o.raw.Op, o.raw.Conns
	cmp.Ratio.P50 = ratio(cmp.MCP.LatencyMS.P50, cmp.Raw.LatencyMS.P50)
	cmp.Ratio.P95 = ratio(cmp.MCP.LatencyMS.P95, cmp.Raw.LatencyMS.P95)
	cmp.Ratio.Throughput = ratio(cmp.MCP.Throughput, cmp.Raw.Throughput)
	return cmp, nil
}
