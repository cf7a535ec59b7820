package main

import (
	"net"
	"os"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	status := "Name:\temail-mcp\nVmPeak:\t 1790740 kB\nVmHWM:\t   30120 kB\nVmRSS:\t   18028 kB\nThreads:\t9\n"
	m, err := parseStatus([]byte(status))
	if err != nil || m.RSSKB != 18028 || m.HWMKB != 30120 {
		t.Errorf("parseStatus() = %+v, %v; want RSS 18028, HWM 30120", m, err)
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t1 kB\nVmRSS:\tlots kB\n"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q) = nil error, want one", bad)
		}
	}
	self, err := readMem(os.Getpid())
	if err != nil || self.RSSKB <= 0 || self.HWMKB < self.RSSKB/2 {
		t.Errorf("readMem(self) = %+v, %v", self, err)
	}
}

func TestParseStatCPU(t *testing.T) {
	// Fields 14 and 15 (utime, stime) after a command name with a space
	// and a parenthesis.
	line := "1234 (email (mcp)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 100 0 0"
	d, err := parseStatCPU(line)
	if err != nil || d != 3*time.Second {
		t.Errorf("parseStatCPU() = %v, %v; want 3s (300 ticks)", d, err)
	}
	if _, err := parseStatCPU("1234 (x) S 1"); err == nil {
		t.Error("parseStatCPU(short) = nil error, want one")
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Errorf("procCPU(self) = %v", err)
	}
}

func TestCountConns(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A1B2 0100007F:03E1 01 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 20 4 30 10 -1
   1: 0100007F:A1B3 0100007F:03E1 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:A1B4 0100007F:03E1 06 00000000:00000000 00:00000000 00000000     0        0 333 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:03E1 0100007F:A1B5 01 00000000:00000000 00:00000000 00000000     0        0 444 1 0000000000000000 20 4 30 10 -1
   4: 0100007F:A1B6 0100007F:03E1 01 00000000:00000000 00:00000000 00000000     0        0 555 1 0000000000000000 20 4 30 10 -1
`
	// 0x03E1 is 993: lines 0 and 1 are ours and established; 2 is in
	// TIME_WAIT, 3 has 993 as its local port, 4 belongs to another process.
	inodes := map[string]bool{"111": true, "222": true, "333": true, "444": true}
	if n := countConns([]byte(table), procAddr(nil, 993), inodes); n != 2 {
		t.Errorf("countConns(any:993) = %d, want 2", n)
	}
	if n := countConns([]byte(table), procAddr(net.IPv4(127, 0, 0, 1), 993), inodes); n != 2 {
		t.Errorf("countConns(127.0.0.1:993) = %d, want 2", n)
	}
	if n := countConns([]byte(table), procAddr(net.IPv4(127, 0, 0, 77), 993), inodes); n != 0 {
		t.Errorf("countConns(127.0.0.77:993) = %d, want 0 (another address, same port)", n)
	}
}

// TestTCPConnsSelf counts this process's own connection to a listener, by
// its full address: the listener is on 127.0.0.77, and Linux may give it a
// port an earlier test's server still holds on 127.0.0.1, whose clients
// counted too when only the port was compared (CI saw 2, twice).
func TestTCPConnsSelf(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.77:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	before, err := tcpConnsTo(os.Getpid(), net.IPv4(127, 0, 0, 77), port)
	if err != nil || before != 0 {
		t.Fatalf("tcpConns() before dialling = %d, %v; want 0", before, err)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := tcpConnsTo(os.Getpid(), net.IPv4(127, 0, 0, 77), port); err != nil || n != 1 {
		t.Errorf("tcpConns() with one connection = %d, %v; want 1 (the accepted side has the port as local port)", n, err)
	}
}

func TestRSSWatch(t *testing.T) {
	w, err := watchRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i) // touch every page
	}
	r := w.finish()
	if r.BeforeKB <= 0 || r.PeakKB < r.BeforeKB || r.GrowthKB != r.PeakKB-r.BeforeKB || (r.PeakSource != "VmHWM" && r.PeakSource != "sampled") {
		t.Errorf("finish() = %+v", r)
	}
	if r.PeakSource == "VmHWM" && r.GrowthKB < 8<<10 {
		t.Errorf("finish() = %+v: growth below 8 MB after touching 32 MB", r)
	}
	_ = buf[len(buf)-1]
}
