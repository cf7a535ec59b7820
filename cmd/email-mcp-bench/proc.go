package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RSSReport is a process's resident memory around a run, in KiB (Linux
// /proc/PID/status).
type RSSReport struct {
	BeforeKB int64 `json:"before_kb"` // VmRSS when the run started
	PeakKB   int64 `json:"peak_kb"`   // highest VmRSS during the run
	AfterKB  int64 `json:"after_kb"`  // VmRSS when it ended
	GrowthKB int64 `json:"growth_kb"` // PeakKB - BeforeKB
	// PeakSource says how the peak was taken: "VmHWM" (the kernel's
	// high-water mark, reset with clear_refs when the run started: exact)
	// or "sampled" (VmRSS read every few milliseconds: may miss a spike).
	PeakSource string `json:"peak_source"`
}

// memStatus is the memory lines of /proc/PID/status.
type memStatus struct {
	RSSKB, HWMKB int64
}

// readMem reads VmRSS and VmHWM of pid.
func readMem(pid int) (memStatus, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	return parseStatus(b)
}

// parseStatus extracts VmRSS and VmHWM (kB) from a /proc/PID/status text.
func parseStatus(b []byte) (memStatus, error) {
	var m memStatus
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return m, fmt.Errorf("%s: %q", key, val)
		}
		found++
		if key == "VmRSS" {
			m.RSSKB = n
		} else {
			m.HWMKB = n
		}
	}
	if found < 2 {
		return m, fmt.Errorf("no VmRSS/VmHWM in the status")
	}
	return m, nil
}

// resetHWM sets pid's VmHWM back to its current RSS (clear_refs 5); it
// needs the right to ptrace the process (same user, or root).
func resetHWM(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// rssWatch follows pid's RSS during a run.
type rssWatch struct {
	pid    int
	before memStatus
	hwm    bool // VmHWM was reset: it is the exact peak
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	peak   int64
}

// watchRSS starts following pid: it resets VmHWM when allowed, else it
// samples VmRSS every 5 ms.
func watchRSS(pid int) (*rssWatch, error) {
	w := &rssWatch{pid: pid, hwm: resetHWM(pid) == nil}
	var err error
	if w.before, err = readMem(pid); err != nil {
		return nil, fmt.Errorf("-pid %d: %w", pid, err)
	}
	w.peak = w.before.RSSKB
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	if !w.hwm { // VmHWM is exact; sample only without it
		w.wg.Go(func() { w.sample(ctx) })
	}
	return w, nil
}

func (w *rssWatch) sample(ctx context.Context) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m, err := readMem(w.pid); err == nil {
			w.mu.Lock()
			w.peak = max(w.peak, m.RSSKB)
			w.mu.Unlock()
		}
	}
}

// close stops sampling; it is safe to call more than once.
func (w *rssWatch) close() {
	w.stop()
	w.wg.Wait()
}

// finish stops sampling and reports.
func (w *rssWatch) finish() *RSSReport {
	w.close()
	after, _ := readMem(w.pid)
	r := &RSSReport{BeforeKB: w.before.RSSKB, AfterKB: after.RSSKB, PeakSource: "sampled"}
	w.mu.Lock()
	r.PeakKB = max(w.peak, after.RSSKB, w.before.RSSKB)
	w.mu.Unlock()
	// The kernel's RSS counters are per-CPU and synced lazily: VmHWM can
	// read a little below a VmRSS read earlier, so the peak is the most of
	// every reading.
	if w.hwm {
		r.PeakKB, r.PeakSource = max(r.PeakKB, after.HWMKB), "VmHWM"
	}
	r.GrowthKB = r.PeakKB - r.BeforeKB
	return r
}

// tcpConns counts the established TCP connections of pid whose remote
// port is port: the process's sockets (/proc/PID/fd) matched by inode
// against /proc/PID/net/tcp and tcp6 (which list the whole network
// namespace).
func tcpConns(pid, port int) (int, error) { return tcpConnsTo(pid, nil, port) }

// tcpConnsTo is tcpConns for connections to ip:port only (any address when
// ip is nil).
func tcpConnsTo(pid int, ip net.IP, port int) (int, error) {
	inodes, err := socketInodes(pid)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		n += countConns(b, procAddr(ip, port), inodes)
	}
	return n, nil
}

// socketInodes lists the inodes of pid's sockets.
func socketInodes(pid int) (map[string]bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	return inodes, nil
}

// tcpEstablished is the state column of an established connection.
const tcpEstablished = "01"

// countConns counts the lines of a /proc/net/tcp table that are
// established, have the remote address want (procAddr) and an inode in
// inodes.
func countConns(table []byte, want string, inodes map[string]bool) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(table))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		if len(f) < 10 || f[3] != tcpEstablished {
			continue
		}
		if inodes[f[9]] && (f[2] == want || strings.HasPrefix(want, ":") && strings.HasSuffix(f[2], want)) {
			n++
		}
	}
	return n
}

// procAddr is ip:port as /proc/net/tcp writes it (the IPv4 address as a
// little-endian hex word, "0100007F:1F90"), or ":PORT" for any address.
func procAddr(ip net.IP, port int) string {
	if ip4 := ip.To4(); ip4 != nil {
		return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip4[3], ip4[2], ip4[1], ip4[0], port)
	}
	return fmt.Sprintf(":%04X", port)
}
