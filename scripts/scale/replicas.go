package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// replica is one `email-mcp serve` process on its own loopback port. It
// can be stopped (SIGTERM or SIGKILL) and started again on the same port.
type replica struct {
	n    int
	port int
	bin  string
	env  []string
	logs string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	runs int
}

func (r *replica) url() string { return fmt.Sprintf("http://127.0.0.1:%d", r.port) }

// start runs the binary; its output goes to a log file per run. The child
// gets SIGKILL if the driver dies (Pdeathsig), so nothing outlives the test.
func (r *replica) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs++
	f, err := os.Create(filepath.Join(r.logs, fmt.Sprintf("replica%d.run%d.log", r.n, r.runs)))
	if err != nil {
		return err
	}
	cmd := exec.Command(r.bin, "serve")
	cmd.Env = append(r.env, fmt.Sprintf("MCP_PORT=%d", r.port))
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	r.cmd, r.done = cmd, done
	return nil
}

// pid is the running process's id.
func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// signal sends sig to the current process and returns its exit channel.
func (r *replica) signal(sig syscall.Signal) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.cmd.Process.Signal(sig)
	return r.done
}

// stop ends the process: TERM, then KILL after d.
func (r *replica) stop(d time.Duration) {
	done := r.signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(d):
		<-r.signal(syscall.SIGKILL)
	}
}

// waitReady polls /ready on the replica's own port for up to d.
func (r *replica) waitReady(ctx context.Context, d time.Duration) error {
	hc := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url()+"/ready", nil)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("replica %d (port %d) not ready after %s", r.n, r.port, d)
}

var ssPID = regexp.MustCompile(`pid=(\d+),`)

// imapConns counts the established TCP connections to the IMAP port per
// process id, as `ss -tnp` shows them.
func imapConns(port int) (map[int]int, error) {
	out, err := exec.Command("ss", "-tnpH", "state", "established", fmt.Sprintf("( dport = :%d )", port)).Output()
	if err != nil {
		return nil, fmt.Errorf("ss: %w", err)
	}
	counts := map[int]int{}
	for _, line := range strings.Split(string(out), "\n") {
		for _, m := range ssPID.FindAllStringSubmatch(line, -1) {
			pid, _ := strconv.Atoi(m[1])
			counts[pid]++
		}
	}
	return counts, nil
}
