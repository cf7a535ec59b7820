package main

import (
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// fakeServerEnv makes the test binary act as a server with /health (for
// TestStartup, which execs it): it listens on MCP_HOST:MCP_PORT until
// SIGTERM.
const fakeServerEnv = "EMAIL_MCP_BENCH_FAKE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) == "1" {
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

func fakeServer() {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	ln, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("MCP_HOST"), os.Getenv("MCP_PORT")))
	if err != nil {
		os.Exit(3)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	select {
	case <-term:
	case <-time.After(time.Minute): // never outlive a test run
	}
	_ = srv.Close()
}

// TestStartup execs this test binary as the server three times and times
// each start to its first 200 from /health.
func TestStartup(t *testing.T) {
	t.Setenv(fakeServerEnv, "1")
	rep, err := runStartup(t.Context(), &startupOptions{Bin: os.Args[0], Runs: 3, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("runStartup() = %v", err)
	}
	if len(rep.Runs) != 3 || rep.BestMS <= 0 || rep.BestMS > rep.MedMS {
		t.Errorf("runStartup() = %+v, want 3 runs, best <= median", rep)
	}
	if _, err := runStartup(t.Context(), &startupOptions{Bin: "/nonexistent/email-mcp", Runs: 1, Timeout: time.Second}); err == nil {
		t.Error("runStartup(missing binary) = nil error, want one")
	}
}
