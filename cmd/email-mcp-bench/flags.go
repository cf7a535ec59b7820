package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Bounds: a run never goes beyond them, whatever the flags say.
const (
	maxDuration    = 10 * time.Minute
	maxCount       = 1_000_000
	maxConcurrency = 2000
	maxConns       = 64
	maxWaiters     = 5000
)

// loadOptions drive a server over MCP.
type loadOptions struct {
	URL, Key    string
	Tool        string
	Args        json.RawMessage
	Plan        plan
	Timeout     time.Duration // per call
	PID         int           // the server's process, for RSS; 0: none
	AllowRemote bool
	// Accept lists error kinds counted as successes: -accept
	// tool_INVALID_ARGUMENT measures the cost of a call that does no I/O.
	Accept map[string]bool
}

// rawOptions drive an IMAP server with a bare imapclient.
type rawOptions struct {
	Addr, User, Pass string
	TLS              bool
	CAFile           string
	Conns            int // connections shared by the workers; 0: one per worker
	Folder           string
	Op               string // search or read
	Limit            int    // search: page size
	UID              uint   // read: the message
	Plan             plan
	Timeout          time.Duration
	AllowRemote      bool
}

// newFlagSet returns a flag set that reports to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("email-mcp-bench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// planFlags registers -c -n -d -warmup, and -cpuprofile into profile.
func planFlags(fs *flag.FlagSet, p *plan, profile *string) {
	fs.StringVar(profile, "cpuprofile", "", "write a CPU profile of this process (the client side) to this file")
	fs.IntVar(&p.Concurrency, "c", 1, "concurrent clients")
	fs.IntVar(&p.Count, "n", 0, "calls to measure (default 100 when -d is not set)")
	fs.DurationVar(&p.Duration, "d", 0, "measure for this long instead of -n calls")
	fs.IntVar(&p.Warmup, "warmup", 5, "calls before measuring, not counted")
}

// checkPlan validates p against the bounds and applies the default count.
func checkPlan(p *plan) error {
	switch {
	case p.Concurrency < 1 || p.Concurrency > maxConcurrency:
		return fmt.Errorf("-c %d: want 1..%d", p.Concurrency, maxConcurrency)
	case p.Count < 0 || p.Count > maxCount:
		return fmt.Errorf("-n %d: want 0..%d", p.Count, maxCount)
	case p.Duration < 0 || p.Duration > maxDuration:
		return fmt.Errorf("-d %v: want at most %v", p.Duration, maxDuration)
	case p.Count > 0 && p.Duration > 0:
		return errors.New("-n and -d exclude each other")
	case p.Warmup < 0 || p.Warmup > maxCount:
		return fmt.Errorf("-warmup %d: want 0..%d", p.Warmup, maxCount)
	}
	if p.Count == 0 && p.Duration == 0 {
		p.Count = 100
	}
	return nil
}

// mcpFlags registers the flags that reach the MCP server.
func mcpFlags(fs *flag.FlagSet, o *loadOptions) {
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8420/mcp", "MCP Streamable HTTP endpoint")
	fs.StringVar(&o.Key, "key", "", "API key (default: $MCP_API_KEY)")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "deadline of one call")
	fs.IntVar(&o.PID, "pid", 0, "the server's PID: report its RSS growth during the run (Linux /proc)")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a server that is not on loopback")
}

// checkMCP validates o and takes the key from the environment if needed.
func checkMCP(o *loadOptions) error {
	if o.Key == "" {
		o.Key = os.Getenv("MCP_API_KEY")
	}
	if o.Key == "" {
		return errors.New("no API key: pass -key or set MCP_API_KEY")
	}
	if o.Timeout <= 0 || o.Timeout > maxDuration {
		return fmt.Errorf("-timeout %v: want up to %v", o.Timeout, maxDuration)
	}
	return checkURL(o.URL, o.AllowRemote)
}

// parseLoad parses the flags of `load`.
func parseLoad(args []string, stderr io.Writer, profile *string) (*loadOptions, error) {
	o := &loadOptions{}
	fs := newFlagSet("load", stderr)
	mcpFlags(fs, o)
	planFlags(fs, &o.Plan, profile)
	fs.StringVar(&o.Tool, "tool", "", "tool to call (required)")
	argsJSON := fs.String("args", "{}", "the tool's arguments, a JSON object")
	accept := fs.String("accept", "", "comma list of error kinds to count as successes (e.g. tool_INVALID_ARGUMENT)")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	o.Accept = map[string]bool{}
	for k := range strings.SplitSeq(*accept, ",") {
		if k = strings.TrimSpace(k); k != "" {
			o.Accept[k] = true
		}
	}
	if o.Tool == "" {
		return nil, errors.New("-tool is required")
	}
	var err error
	if o.Args, err = jsonObject(*argsJSON); err != nil {
		return nil, err
	}
	if err := checkPlan(&o.Plan); err != nil {
		return nil, err
	}
	return o, checkMCP(o)
}

// jsonObject checks that s is one JSON object.
func jsonObject(s string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("-args %q: want a JSON object", s)
	}
	return json.RawMessage(s), nil
}

// imapFlags registers the flags of the bare IMAP client.
func imapFlags(fs *flag.FlagSet, o *rawOptions) {
	fs.StringVar(&o.Addr, "imap-addr", "", "IMAP server host:port (required)")
	fs.StringVar(&o.User, "imap-user", "", "IMAP login (required)")
	fs.StringVar(&o.Pass, "imap-pass", "", "IMAP password (default: $IMAP_PASSWORD)")
	fs.BoolVar(&o.TLS, "imap-tls", true, "implicit TLS (IMAPS); false: plain text")
	fs.StringVar(&o.CAFile, "ca-file", "", "PEM file of a CA to trust")
	fs.IntVar(&o.Conns, "conns", 0, "IMAP connections shared by the clients (default: one per client)")
	fs.StringVar(&o.Folder, "folder", "INBOX", "folder")
	fs.StringVar(&o.Op, "op", "search", "search (UID SEARCH + UID FETCH of a page, as search_emails) or read (as read_email)")
	fs.IntVar(&o.Limit, "limit", 50, "search: page size")
	fs.UintVar(&o.UID, "uid", 0, "read: the message's UID")
}

// checkRaw validates o, applies the defaults for concurrency c and takes
// the password from the environment if needed.
func checkRaw(o *rawOptions, c int) error {
	if o.Pass == "" {
		o.Pass = os.Getenv("IMAP_PASSWORD")
	}
	if o.Conns == 0 {
		o.Conns = min(c, maxConns)
	}
	switch {
	case o.Addr == "" || o.User == "" || o.Pass == "":
		return errors.New("-imap-addr, -imap-user and -imap-pass (or $IMAP_PASSWORD) are required")
	case o.Conns < 1 || o.Conns > maxConns:
		return fmt.Errorf("-conns %d: want 1..%d", o.Conns, maxConns)
	case o.Op != "search" && o.Op != "read":
		return fmt.Errorf("-op %q: want search or read", o.Op)
	case o.Op == "search" && (o.Limit < 1 || o.Limit > 1000):
		return fmt.Errorf("-limit %d: want 1..1000", o.Limit)
	case o.Op == "read" && (o.UID == 0 || o.UID > 1<<32-1):
		return errors.New("-uid is required for -op read")
	}
	return checkAddr("imap-addr", o.Addr, o.AllowRemote)
}

// parseRaw parses the flags of `raw`.
func parseRaw(args []string, stderr io.Writer, profile *string) (*rawOptions, error) {
	o := &rawOptions{}
	fs := newFlagSet("raw", stderr)
	imapFlags(fs, o)
	planFlags(fs, &o.Plan, profile)
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "deadline of one operation")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a server that is not on loopback")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if err := checkPlan(&o.Plan); err != nil {
		return nil, err
	}
	return o, checkRaw(o, o.Plan.Concurrency)
}

// parseAll parses args and refuses positional arguments.
func parseAll(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
