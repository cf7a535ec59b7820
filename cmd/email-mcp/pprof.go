//go:build pprof

package main

import (
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"
)

// A profiling build for the benchmarks (scripts/bench, BENCHMARKS.md):
//
//	go build -tags pprof -o email-mcp-pprof ./cmd/email-mcp
//	PPROF_ADDR=127.0.0.1:6060 email-mcp-pprof serve
//	go tool pprof -seconds 20 http://127.0.0.1:6060/debug/pprof/profile
//
// Release builds have no such listener. It serves on loopback only, with no
// key: an address that is not a loopback IP is refused.
func init() {
	addr := os.Getenv("PPROF_ADDR")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		os.Stderr.WriteString("email-mcp: PPROF_ADDR must be a loopback IP and port\n")
		os.Exit(exitConfig)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		os.Stderr.WriteString("email-mcp: PPROF_ADDR: " + err.Error() + "\n")
		os.Exit(exitConfig)
	}
	go http.Serve(ln, http.DefaultServeMux) //nolint:errcheck // a debugging aid
}
