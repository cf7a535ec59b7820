// Command email-mcp-bench measures a running email-mcp server, side by side
// with the raw IMAP protocol that it speaks underneath.
//
//	email-mcp-bench load     -tool T -args JSON -c N (-n N | -d D)   calls a tool over MCP
//	email-mcp-bench raw      -op search|read -imap-addr A ...        the same IMAP work, bare go-imap
//	email-mcp-bench compare  -op search|read ...                     both, and the ratio MCP/raw
//	email-mcp-bench wait     -k K -smtp-addr A | -lmtp-addr A        wait_for_otp latency (-raw: IDLE floor)
//	email-mcp-bench startup  -bin PATH                               exec to the first 200 of /health
//	email-mcp-bench proc     -pid P [-imap-port N]                   RSS and IMAP connections of a process
//	email-mcp-bench sink     -addr-file F                            an SMTP server that discards mail
//	email-mcp-bench echo     -addr-file F -size N                    an HTTP server that answers tool calls at once
//
// The MCP client is plain net/http and JSON-RPC: stateless Streamable
// HTTP, one POST of tools/call per call, no initialize (the server keeps
// no session). Every mode prints one JSON object on stdout. Targets must be
// on loopback unless -allow-remote is given; runs are bounded (10 minutes,
// a million calls). Secrets come from flags or from MCP_API_KEY and
// IMAP_PASSWORD, which keeps them out of command lines.
//
// Exit status: 0 on success, 1 when the run failed, 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

const usage = `usage: email-mcp-bench MODE [flags]   (email-mcp-bench MODE -h for its flags)

  load      call one tool over MCP with -c clients for -n calls or -d time
  raw       the same IMAP work as search_emails (-op search) or read_email (-op read), bare go-imap
  compare   load then raw for the same -op; prints the ratios MCP/raw
  wait      wait_for_otp latency from the end of SMTP/LMTP DATA; -raw: a bare IDLE client (the floor)
  startup   time from exec to the first 200 of /health (best of -runs)
  proc      VmRSS/VmHWM of -pid and its TCP connections to -imap-port
  sink      an SMTP server on loopback that accepts and discards mail
  echo      an HTTP server on loopback that answers every tool call at once (the HTTP floor)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	mode, args := args[0], args[1:]
	out, err := dispatch(ctx, mode, args, stderr)
	var ue *usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "email-mcp-bench %s: %v\n", mode, ue.err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "email-mcp-bench %s: %v\n", mode, err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "email-mcp-bench: %v\n", err)
		return 1
	}
	return 0
}

// usageError is a bad command line: exit 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErr marks err (if any) as a usage error.
func usageErr(err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{err}
}

// runner runs a parsed mode.
type runner func(ctx context.Context) (any, error)

// dispatch parses the mode's flags and runs it, under a CPU profile of
// this process when -cpuprofile was given.
func dispatch(ctx context.Context, mode string, args []string, stderr io.Writer) (any, error) {
	var profile string
	run, err := parseMode(mode, args, stderr, &profile)
	if err != nil {
		return nil, usageErr(err)
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	return run(ctx)
}

// parseMode parses the flags of mode and returns what runs it.
func parseMode(mode string, args []string, stderr io.Writer, profile *string) (runner, error) {
	switch mode {
	case "load":
		o, err := parseLoad(args, stderr, profile)
		return func(ctx context.Context) (any, error) { return runMCP(ctx, o) }, err
	case "raw":
		o, err := parseRaw(args, stderr, profile)
		return func(ctx context.Context) (any, error) { return runRaw(ctx, o) }, err
	case "compare":
		o, err := parseCompare(args, stderr, profile)
		return func(ctx context.Context) (any, error) { return runCompare(ctx, o) }, err
	case "wait":
		o, err := parseWait(args, stderr)
		if err == nil && o.Raw {
			return func(ctx context.Context) (any, error) { return runWaitRaw(ctx, o) }, nil
		}
		return func(ctx context.Context) (any, error) { return runWait(ctx, o) }, err
	case "startup":
		o, err := parseStartup(args, stderr)
		return func(ctx context.Context) (any, error) { return runStartup(ctx, o) }, err
	case "proc":
		o, err := parseProc(args, stderr)
		return func(context.Context) (any, error) { return runProc(o) }, err
	case "sink":
		o, err := parseSink(args, stderr)
		return func(ctx context.Context) (any, error) { return runSink(ctx, o) }, err
	case "echo":
		o, err := parseEcho(args, stderr)
		return func(ctx context.Context) (any, error) { return runEcho(ctx, o) }, err
	}
	return nil, fmt.Errorf("unknown mode %q\n\n%s", mode, usage)
}

// procOptions name a process to inspect.
type procOptions struct {
	PID, IMAPPort int
}

// ProcReport is what `proc` prints.
type ProcReport struct {
	VmRSSKB   int64 `json:"vm_rss_kb"`
	VmHWMKB   int64 `json:"vm_hwm_kb"`
	IMAPConns *int  `json:"imap_conns,omitempty"`
}

func parseProc(args []string, stderr io.Writer) (*procOptions, error) {
	o := &procOptions{}
	fs := newFlagSet("proc", stderr)
	fs.IntVar(&o.PID, "pid", 0, "process id (required)")
	fs.IntVar(&o.IMAPPort, "imap-port", 0, "also count its established TCP connections to this port")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if o.PID <= 0 || o.IMAPPort < 0 || o.IMAPPort > 65535 {
		return nil, errors.New("-pid is required; -imap-port must be a port")
	}
	return o, nil
}

func runProc(o *procOptions) (*ProcReport, error) {
	m, err := readMem(o.PID)
	if err != nil {
		return nil, err
	}
	r := &ProcReport{VmRSSKB: m.RSSKB, VmHWMKB: m.HWMKB}
	if o.IMAPPort > 0 {
		n, err := tcpConns(o.PID, o.IMAPPort)
		if err != nil {
			return nil, err
		}
		r.IMAPConns = &n
	}
	return r, nil
}
