package main

import (
	"os"
	"runtime/debug"
)

// The garbage collector's defaults, unless GOGC or GOMEMLIMIT say otherwise.
//
// email-mcp keeps a small live heap (a few MB) and allocates quickly per
// call (IMAP responses, MIME, JSON), so with Go's default GOGC=100 the
// collector ran every few calls: a third of the server's CPU for a
// search_emails of 50 on a 10,000-message folder (7.1 → 4.9 ms per call at
// GOGC=400, BENCHMARKS.md). A higher GOGC trades a few MB of heap for that;
// the soft memory limit makes the collector work harder again before a
// burst (1,000 concurrent waits) can grow the process without bound.
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 128 << 20
)

// tuneGC applies the defaults above where the environment sets nothing.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
