// Command scale is the driver of the scale test (scripts/scale/run.sh):
// three replicas of email-mcp over one Dovecot account behind nginx, legacy
// SSE sessions through round robin and through the sticky recipe of
// deploy/nginx/email-mcp.conf, search throughput with one, two and three
// replicas, 300 concurrent wait_for_otp calls while one replica gets SIGTERM
// and another SIGKILL, and SEND_MAX_PER_HOUR=5 across the replicas. It
// prints a JSON report and a summary, and exits 1 when a property fails.
//
// It starts and stops the replicas itself (run.sh starts nginx), on the
// loopback ports it is given; every wait is bounded.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	bin, dovecot, host, logs, jsonOut string
	ports                             []int
	lb, lbNaive                       string
	lbN                               [3]string
	waits, seed                       int
	throughput                        time.Duration
	strictCap                         bool
}

func parseFlags() options {
	var o options
	var ports, lbN string
	flag.StringVar(&o.bin, "bin", "", "the email-mcp binary")
	flag.StringVar(&o.dovecot, "dovecot", "", "a Dovecot DIR started by scripts/dovecot/start.sh")
	flag.StringVar(&ports, "ports", "", "three loopback ports for the replicas, comma separated")
	flag.StringVar(&o.lb, "lb", "", "nginx with deploy/nginx/email-mcp.conf (base URL)")
	flag.StringVar(&o.lbNaive, "lb-naive", "", "nginx with round robin for everything, /sse included")
	flag.StringVar(&lbN, "lb-n", "", "three base URLs: nginx over the first 1, 2 and 3 replicas")
	flag.StringVar(&o.host, "host", "mail.example.com", "the public Host name clients use")
	flag.StringVar(&o.logs, "logs", "", "folder for the replicas' logs")
	flag.StringVar(&o.jsonOut, "json", "", "write the JSON report here too")
	flag.IntVar(&o.waits, "waits", 300, "concurrent wait_for_otp calls")
	flag.IntVar(&o.seed, "seed", 200, "messages seeded for the searches")
	flag.DurationVar(&o.throughput, "throughput", 4*time.Second, "search load per replica count")
	flag.Parse()
	o.strictCap = os.Getenv("EMAIL_MCP_SCALE_STRICT_CAP") != "0"
	for _, p := range strings.Split(ports, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err == nil {
			o.ports = append(o.ports, n)
		}
	}
	urls := strings.Split(lbN, ",")
	if o.bin == "" || o.dovecot == "" || len(o.ports) != 3 || o.lb == "" || o.lbNaive == "" || len(urls) != 3 || o.logs == "" {
		fmt.Fprintln(os.Stderr, "usage: scale -bin B -dovecot DIR -ports P1,P2,P3 -lb URL -lb-naive URL -lb-n U1,U2,U3 -logs DIR")
		os.Exit(2)
	}
	copy(o.lbN[:], urls)
	return o
}

// readEnv reads DIR/env as start.sh writes it (NAME=value, %q-quoted).
func readEnv(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok {
			env[k] = strings.Trim(v, `'"`)
		}
	}
	return env, nil
}

func main() {
	o := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The whole test is bounded: 5 minutes, then everything is cancelled.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	rep, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale: FAIL:", err)
		os.Exit(1)
	}
	out, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(out))
	if o.jsonOut != "" {
		_ = os.WriteFile(o.jsonOut, append(out, '\n'), 0o644)
	}
	fmt.Print(rep.summary())
	if len(rep.Failures) > 0 {
		for _, f := range rep.Failures {
			fmt.Fprintln(os.Stderr, "scale: FAIL:", f)
		}
		os.Exit(1)
	}
	fmt.Println("scale: every property holds")
}

// env is what every replica runs with: one account, the relay, the public
// Host allowed, no per-key rate limit (the test measures the waits and the
// send cap, not the limiter), a send cap of 5 per hour.
type setup struct {
	o       options
	env     map[string]string
	account string
	key     string
	reps    []*replica
	relay   *relay
	lmtp    lmtp
	lb      *client
}

func newSetup(o options) (*setup, error) {
	env, err := readEnv(filepath.Join(o.dovecot, "env"))
	if err != nil {
		return nil, err
	}
	s := &setup{o: o, env: env, lmtp: lmtp{addr: env["DOVECOT_LMTP_ADDR"]}}
	s.account = fmt.Sprintf("scale-%d-%d@%s", time.Now().Unix()%100000, rand.IntN(100000), env["DOVECOT_TEST_DOMAIN"])
	s.key = fmt.Sprintf("scale-%016x%016x", rand.Uint64(), rand.Uint64())
	s.relay, err = startRelay(s.lmtp, env["DOVECOT_TEST_PASSWORD"])
	if err != nil {
		return nil, err
	}
	imaps := env["DOVECOT_IMAPS_ADDR"]
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + o.logs,
		"IMAP_HOST=127.0.0.1", "IMAP_PORT=" + imaps[strings.LastIndex(imaps, ":")+1:], "IMAP_SSL=true",
		"TLS_CA_FILE=" + env["DOVECOT_CA_FILE"], "IMAP_USER=" + s.account, "IMAP_PASSWORD=" + env["DOVECOT_TEST_PASSWORD"],
		"INBOX_ADDRESS=" + s.account, "IMAP_POOL_SIZE=3",
		"SMTP_HOST=127.0.0.1", "SMTP_PORT=" + s.relay.addr[strings.LastIndex(s.relay.addr, ":")+1:], "SMTP_STARTTLS=false",
		"SMTP_USER=" + s.account, "SMTP_PASSWORD=" + env["DOVECOT_TEST_PASSWORD"],
		"MCP_HOST=127.0.0.1", "MCP_API_KEY=" + s.key, "MCP_ALLOWED_HOSTS=" + o.host,
		"RATE_LIMIT_PER_MINUTE=0", "SEND_MAX_PER_HOUR=5", "WAIT_MAX_SECONDS=60", "LOG_LEVEL=info",
	}
	for i, p := range o.ports {
		s.reps = append(s.reps, &replica{n: i + 1, port: p, bin: o.bin, env: base, logs: o.logs})
	}
	s.lb = newClient(o.lb, o.host, s.key, nil)
	return s, nil
}

// replicaName maps an upstream address (X-Upstream) to replicaN.
func (s *setup) replicaName(upstream string) string {
	for _, r := range s.reps {
		if strings.HasSuffix(upstream, fmt.Sprintf(":%d", r.port)) {
			return fmt.Sprintf("replica%d", r.n)
		}
	}
	if upstream == "" {
		return "unknown"
	}
	return upstream
}

// secretsInLogs counts the replica log files that hold the API key or the
// account password.
func (s *setup) secretsInLogs() int {
	files, _ := filepath.Glob(filepath.Join(s.o.logs, "*.log"))
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err == nil && (strings.Contains(string(raw), s.key) || strings.Contains(string(raw), s.env["DOVECOT_TEST_PASSWORD"])) {
			n++
		}
	}
	return n
}

func (s *setup) imapPort() int {
	a := s.env["DOVECOT_IMAPS_ADDR"]
	n, _ := strconv.Atoi(a[strings.LastIndex(a, ":")+1:])
	return n
}

// conns reports the IMAP connections of each replica's current process.
func (s *setup) conns() map[string]int {
	counts, err := imapConns(s.imapPort())
	out := map[string]int{}
	if err != nil {
		return out
	}
	for _, r := range s.reps {
		out[fmt.Sprintf("replica%d", r.n)] = counts[r.pid()]
	}
	return out
}

func run(ctx context.Context, o options) (*report, error) {
	s, err := newSetup(o)
	if err != nil {
		return nil, err
	}
	defer s.relay.close()
	for _, r := range s.reps {
		if err := r.start(); err != nil {
			return nil, err
		}
		defer r.stop(25 * time.Second)
	}
	for _, r := range s.reps {
		if err := r.waitReady(ctx, 30*time.Second); err != nil {
			return nil, err
		}
	}
	rep := &report{Replicas: 3, Account: "one Dovecot account", SendCapPerHour: 5, PoolSize: 3}
	uids, err := s.seedMail(ctx, o.seed)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintln(os.Stderr, "scale: legacy SSE sessions")
	rep.SSENaive = sseRun(ctx, o.lbNaive, o.host, s.key, 20)
	rep.SSERecipe = sseRun(ctx, o.lb, o.host, s.key, 20)
	fmt.Fprintln(os.Stderr, "scale: search throughput with 1, 2, 3 replicas")
	for i, u := range o.lbN {
		rep.Throughput = append(rep.Throughput, searchLoad(ctx, newClient(u, o.host, s.key, nil), i+1, 8, o.throughput))
	}
	rep.IMAPConnsIdle = s.conns()
	fmt.Fprintf(os.Stderr, "scale: %d waits while replica 2 gets SIGTERM and replica 3 SIGKILL\n", o.waits)
	rep.Waits = s.waitPhase(ctx, o.waits, uids, rep)
	for _, r := range s.reps {
		if err := r.waitReady(ctx, 30*time.Second); err != nil {
			return nil, err
		}
	}
	// nginx skips a replica for fail_timeout (5 s) after it failed: wait
	// that out, so that the sends go round all three.
	time.Sleep(6 * time.Second)
	rep.IMAPConnsAfter = s.conns()
	fmt.Fprintln(os.Stderr, "scale: 20 sends through the load balancer, SEND_MAX_PER_HOUR=5 on each replica")
	rep.Sends = s.sendPhase(ctx, 20)
	rep.CallsMade = callsMade.Load()
	for _, r := range s.reps {
		r.stop(25 * time.Second)
	}
	rep.SecretsInLogs = s.secretsInLogs()
	rep.check(o.strictCap)
	return rep, nil
}

// seedMail delivers n messages for the searches and reads, and returns
// their UIDs (from a search through the load balancer).
func (s *setup) seedMail(ctx context.Context, n int) ([]string, error) {
	for i := range n {
		msg := fmt.Sprintf("From: Seed <seed@example.test>\r\nTo: %s\r\nSubject: scale seed %d\r\nMessage-ID: <scale-seed-%d@example.test>\r\n\r\nSeed body %d: quarterly numbers attached.\r\n",
			s.account, i, i, i)
		if err := s.lmtp.deliver("seed@example.test", []string{s.account}, []byte(msg)); err != nil {
			return nil, err
		}
	}
	out := s.lb.call(ctx, 30*time.Second, "search_emails", map[string]any{"subject": "scale seed", "limit": 50})
	if !out.ok() {
		return nil, fmt.Errorf("search_emails through the load balancer: %s", out.Kind)
	}
	msgs, _ := out.Result["messages"].([]any)
	var uids []string
	for _, m := range msgs {
		if mm, ok := m.(map[string]any); ok {
			uids = append(uids, fmt.Sprint(mm["uid"]))
		}
	}
	if len(uids) == 0 {
		return nil, fmt.Errorf("search_emails found no seeded message")
	}
	return uids, nil
}
