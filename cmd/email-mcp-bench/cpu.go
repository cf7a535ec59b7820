package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPUReport is the processor time a run cost per successful call, which
// other load on the machine disturbs far less than latency.
type CPUReport struct {
	// ClientMS is this process's time (user + system) per call: for raw
	// mode, the whole cost of the IMAP client work.
	ClientMS float64 `json:"client_ms_per_call"`
	// ServerMS is the server's time per call (-pid; /proc/PID/stat, in
	// clock ticks of 10 ms: meaningful over a run of a second or more).
	ServerMS *float64 `json:"server_ms_per_call,omitempty"`
}

// cpuMark is the processor time used so far by this process and by pid.
type cpuMark struct {
	self   time.Duration
	server time.Duration
	pid    int
}

// markCPU reads the processor times now; pid 0 skips the server.
func markCPU(pid int) cpuMark {
	m := cpuMark{self: selfCPU(), pid: pid}
	if pid > 0 {
		m.server, _ = procCPU(pid)
	}
	return m
}

// cpuUse is the processor time used over an interval.
type cpuUse struct {
	self, server time.Duration
	haveServer   bool
}

// used is the time used since m.
func (m cpuMark) used() cpuUse {
	u := cpuUse{self: selfCPU() - m.self}
	if m.pid > 0 {
		if now, err := procCPU(m.pid); err == nil {
			u.server, u.haveServer = now-m.server, true
		}
	}
	return u
}

// add sums two intervals.
func (u cpuUse) add(v cpuUse) cpuUse {
	return cpuUse{self: u.self + v.self, server: u.server + v.server, haveServer: u.haveServer || v.haveServer}
}

// report divides the time by the successful calls (nil for none).
func (u cpuUse) report(calls int) *CPUReport {
	if calls == 0 {
		return nil
	}
	per := func(d time.Duration) float64 {
		return math.Round(float64(d)/float64(calls)/float64(time.Microsecond)) / 1000
	}
	r := &CPUReport{ClientMS: per(u.self)}
	if u.haveServer {
		v := per(u.server)
		r.ServerMS = &v
	}
	return r
}

// selfCPU is this process's user + system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTick is USER_HZ, the unit of /proc/PID/stat times (100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU is pid's user + system time from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line; the command name in parentheses may hold spaces.
func parseStatCPU(line string) (time.Duration, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat: no command name")
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields", len(f)+2)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat: utime %q stime %q", f[11], f[12])
	}
	return time.Duration(utime+stime) * clockTick, nil
}
