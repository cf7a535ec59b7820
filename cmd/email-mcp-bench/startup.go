package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// startupOptions measure the time from exec to the first 200 of /health.
type startupOptions struct {
	Bin     string
	Runs    int
	Timeout time.Duration // per run
}

// StartupReport is what `startup` prints.
type StartupReport struct {
	Runs   []float64 `json:"runs_ms"`
	BestMS float64   `json:"best_ms"`
	MedMS  float64   `json:"median_ms"`
}

// parseStartup parses the flags of `startup`.
func parseStartup(args []string, stderr io.Writer) (*startupOptions, error) {
	o := &startupOptions{}
	fs := newFlagSet("startup", stderr)
	fs.StringVar(&o.Bin, "bin", "", "the email-mcp binary (required); it gets this environment plus MCP_HOST=127.0.0.1 and a free MCP_PORT")
	fs.IntVar(&o.Runs, "runs", 5, "starts")
	fs.DurationVar(&o.Timeout, "timeout", 20*time.Second, "give up on a start after this long")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	switch {
	case o.Bin == "":
		return nil, errors.New("-bin is required")
	case o.Runs < 1 || o.Runs > 100:
		return nil, fmt.Errorf("-runs %d: want 1..100", o.Runs)
	case o.Timeout <= 0 || o.Timeout > maxDuration:
		return nil, fmt.Errorf("-timeout %v: want up to %v", o.Timeout, maxDuration)
	}
	return o, nil
}

// runStartup starts the binary o.Runs times, one after the other.
func runStartup(ctx context.Context, o *startupOptions) (*StartupReport, error) {
	rep := &StartupReport{}
	for range o.Runs {
		d, err := startOnce(ctx, o)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, ms(d))
	}
	sorted := slices.Clone(rep.Runs)
	slices.Sort(sorted)
	rep.BestMS, rep.MedMS = sorted[0], sorted[len(sorted)/2]
	return rep, nil
}

// startOnce execs the binary on a free port, polls /health until it
// answers 200, then stops it with SIGTERM (SIGKILL after 10 s).
func startOnce(ctx context.Context, o *startupOptions) (time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(o.Bin, "serve")
	cmd.Env = append(os.Environ(), "MCP_HOST=127.0.0.1", "MCP_PORT="+strconv.Itoa(port))
	url := fmt.Sprintf("http://127.0.0.1:%d/health", port)
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: time.Second}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", o.Bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer stop(cmd, exited)
	deadline := time.Now().Add(o.Timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if healthy(hc, url) {
			return time.Since(start), nil
		}
		select {
		case err := <-exited:
			exited <- err // for stop
			return 0, fmt.Errorf("%s exited before /health answered: %v", o.Bin, err)
		case <-time.After(time.Millisecond):
		}
	}
	return 0, fmt.Errorf("%s: no 200 from /health within %v", o.Bin, o.Timeout)
}

// healthy reports whether url answers 200.
func healthy(hc *http.Client, url string) bool {
	resp, err := hc.Get(url)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends the process started by cmd: SIGTERM, then SIGKILL after 10 s.
func stop(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
