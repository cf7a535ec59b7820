package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
	"time"
)

// waitOptions drive the `wait` mode: K waiters per round, each on an inbox
// of its own, and one mail per inbox delivered after they block.
type waitOptions struct {
	mcp         loadOptions // URL, Key, PID, AllowRemote
	Waiters     int
	Rounds      int
	SMTPAddr    string // deliver by SMTP (the sandbox's catch-all port)
	LMTPAddr    string // or by LMTP (Dovecot)
	WaitTimeout time.Duration
	Settle      time.Duration // between starting the waiters and the first delivery
	IMAPPort    int           // with -pid: count the server's connections to this port
	Raw         bool          // measure a bare IDLE client instead (the floor)
	raw         rawOptions
	Rcpt        string // -raw: the address whose mailbox the client idles on
}

// WaitReport is what `wait` prints.
type WaitReport struct {
	Summary
	Rounds   int    `json:"rounds"`
	Delivery string `json:"delivery"` // smtp or lmtp
	// LatencyMS (in Summary) runs from the server's answer to the end of
	// DATA to the tool result (or, -raw, to the untagged EXISTS).
	// SamplesMS lists every latency in the order of delivery when there
	// are at most maxSamples (a first round slower than the others shows).
	SamplesMS []float64   `json:"samples_ms,omitempty"`
	SetupMS   *Latency    `json:"create_inbox_ms,omitempty"`
	Waiting   *memStatus  `json:"rss_while_waiting_kb,omitempty"`
	IMAPConns *connCounts `json:"imap_conns,omitempty"`
	// Failures names the first maxFailures waits that did not return
	// their code, so that one lost in 1,000 can be traced in the server's
	// log (its inbox, and when its mail went out after the call).
	Failures []waitFailure `json:"failures,omitempty"`
}

// maxFailures bounds WaitReport.Failures.
const maxFailures = 20

// waitFailure is one wait that did not return its code.
type waitFailure struct {
	Round   int    `json:"round"`
	Address string `json:"address"`
	Outcome string `json:"outcome"` // as counted in errors
	Error   string `json:"error,omitempty"`
	// CallToSendMS runs from the call's start to the end of its mail's
	// delivery, EndMS from the call's start to its end.
	CallToSendMS float64 `json:"call_to_send_ms"`
	EndMS        float64 `json:"end_ms"`
}

// maxSamples bounds WaitReport.SamplesMS.
const maxSamples = 100

// connCounts are the server's IMAP connections at three moments.
type connCounts struct {
	Before  int `json:"before"`  // before the first waiter
	Waiting int `json:"waiting"` // with every waiter blocked (the most over the rounds)
	After   int `json:"after"`   // when the last round ended
}

// MarshalJSON names the fields of memStatus for the report.
func (m memStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]int64{"vm_rss": m.RSSKB, "vm_hwm": m.HWMKB})
}

// parseWait parses the flags of `wait`.
func parseWait(args []string, stderr io.Writer) (*waitOptions, error) {
	o := &waitOptions{}
	fs := newFlagSet("wait", stderr)
	mcpFlags(fs, &o.mcp)
	imapFlags(fs, &o.raw)
	fs.IntVar(&o.Waiters, "k", 1, "concurrent waiters per round (create_inbox then wait_for_otp)")
	fs.IntVar(&o.Rounds, "rounds", 10, "rounds")
	fs.StringVar(&o.SMTPAddr, "smtp-addr", "", "deliver by SMTP to this host:port (the sandbox's DEV_SMTP_ADDR)")
	fs.StringVar(&o.LMTPAddr, "lmtp-addr", "", "deliver by LMTP to this host:port (DOVECOT_LMTP_ADDR)")
	fs.DurationVar(&o.WaitTimeout, "wait-timeout", 30*time.Second, "wait_for_otp's timeout")
	fs.DurationVar(&o.Settle, "settle", 0, "pause between starting the waiters and delivering (default 300ms + 3ms per waiter)")
	fs.IntVar(&o.IMAPPort, "imap-port", 0, "with -pid: count the server's connections to this IMAP port")
	fs.BoolVar(&o.Raw, "raw", false, "the floor: a bare go-imap client in IDLE instead of the MCP server (needs the -imap-* flags and -rcpt)")
	fs.StringVar(&o.Rcpt, "rcpt", "", "-raw: the recipient of the mails (the IMAP user's address)")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	return o, o.check()
}

func (o *waitOptions) check() error {
	switch {
	case o.Waiters < 1 || o.Waiters > maxWaiters:
		return fmt.Errorf("-k %d: want 1..%d", o.Waiters, maxWaiters)
	case o.Rounds < 1 || o.Rounds*o.Waiters > maxCount:
		return fmt.Errorf("-rounds %d: want at least 1 and at most %d mails in all", o.Rounds, maxCount)
	case (o.SMTPAddr == "") == (o.LMTPAddr == ""):
		return errors.New("pass one of -smtp-addr and -lmtp-addr")
	case o.WaitTimeout <= 0 || o.WaitTimeout > maxDuration:
		return fmt.Errorf("-wait-timeout %v: want up to %v", o.WaitTimeout, maxDuration)
	case o.Settle < 0 || o.Settle > time.Minute:
		return fmt.Errorf("-settle %v: want up to 1m", o.Settle)
	}
	if o.Settle == 0 {
		o.Settle = 300*time.Millisecond + time.Duration(o.Waiters)*3*time.Millisecond
	}
	if err := checkAddr("smtp-addr", o.SMTPAddr+o.LMTPAddr, o.mcp.AllowRemote); err != nil {
		return err
	}
	if o.Raw {
		o.raw.AllowRemote, o.raw.Timeout, o.raw.Op = o.mcp.AllowRemote, o.WaitTimeout, "search"
		if o.Rcpt == "" {
			return errors.New("-raw needs -rcpt")
		}
		return checkRaw(&o.raw, 1)
	}
	o.mcp.Timeout = o.WaitTimeout + 30*time.Second
	return checkMCP(&o.mcp)
}

// delivery names the delivery protocol and its address.
func (o *waitOptions) delivery() (string, string, bool) {
	if o.LMTPAddr != "" {
		return "lmtp", o.LMTPAddr, true
	}
	return "smtp", o.SMTPAddr, false
}

// waiter is one wait_for_otp call of a round. The round's goroutine
// writes sent and undelivered; the call's goroutine writes done and kind.
type waiter struct {
	inbox, addr, code   string
	started, sent, done time.Time
	undelivered         bool   // the mail could not be delivered
	kind                string // the call's outcome: "" when it returned code
	err                 string // the call's error, if any
}

// outcome is the kind the waiter counts under, once its call has ended.
func (w *waiter) outcome() string {
	if w.undelivered {
		return "deliver"
	}
	return w.kind
}

// runWait runs the rounds of MCP waiters.
func runWait(ctx context.Context, o *waitOptions) (*WaitReport, error) {
	name, addr, lmtp := o.delivery()
	d, err := dialDeliverer(ctx, addr, lmtp)
	if err != nil {
		return nil, err
	}
	defer d.close()
	c := newMCPClient(o.mcp.URL, o.mcp.Key, o.Waiters, o.mcp.Timeout)
	defer c.close()
	rep := &WaitReport{Rounds: o.Rounds, Delivery: name}
	if o.mcp.PID > 0 && o.IMAPPort > 0 {
		rep.IMAPConns = &connCounts{}
		rep.IMAPConns.Before, _ = tcpConns(o.mcp.PID, o.IMAPPort)
	}
	var rss *rssWatch
	if o.mcp.PID > 0 {
		if rss, err = watchRSS(o.mcp.PID); err != nil {
			return nil, err
		}
		defer rss.close()
	}
	start := time.Now()
	rec, setup, err := runRounds(ctx, c, d, o, rep)
	if err != nil {
		return nil, err
	}
	rep.Summary = merge([]*recorder{rec}, time.Since(start))
	rep.Mode, rep.Op, rep.Concurrency = "wait", "wait_for_otp", o.Waiters
	sl := summarize(setup.lat)
	rep.SetupMS = &sl
	if rss != nil {
		rep.RSS = rss.finish()
	}
	if rep.IMAPConns != nil {
		rep.IMAPConns.After, _ = tcpConns(o.mcp.PID, o.IMAPPort)
	}
	return rep, nil
}

// runRounds runs o.Rounds rounds and records the waits and the
// create_inbox calls.
func runRounds(ctx context.Context, c *mcpClient, d *deliverer, o *waitOptions, rep *WaitReport) (rec, setup *recorder, err error) {
	rec, setup = newRecorder(), newRecorder()
	for r := 0; r < o.Rounds && ctx.Err() == nil; r++ {
		ws, err := createInboxes(ctx, c, o.Waiters, setup)
		if err != nil {
			return nil, nil, err
		}
		runRound(ctx, c, d, o, ws, rep)
		for _, w := range ws {
			// The sandbox delivers before it answers the end of DATA: the
			// result may come before the bench has read the 250 (then 0).
			lat := max(w.done.Sub(w.sent), 0)
			rec.add(lat, w.outcome())
			if w.outcome() != "" && len(rep.Failures) < maxFailures {
				rep.Failures = append(rep.Failures, waitFailure{Round: r, Address: w.addr, Outcome: w.outcome(), Error: w.err,
					CallToSendMS: ms(w.sent.Sub(w.started)), EndMS: ms(w.done.Sub(w.started))})
			}
			if o.Rounds*o.Waiters <= maxSamples {
				rep.SamplesMS = append(rep.SamplesMS, ms(lat))
			}
		}
	}
	return rec, setup, nil
}

// createInboxes makes n inboxes, 16 at a time, timing each call in setup.
func createInboxes(ctx context.Context, c *mcpClient, n int, setup *recorder) ([]*waiter, error) {
	ws := make([]*waiter, n)
	errs := make([]error, n)
	lat := make([]time.Duration, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range ws {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			res, err := c.call(ctx, "create_inbox", json.RawMessage(`{"label":"bench"}`))
			lat[i] = time.Since(t0)
			var in struct {
				InboxID string `json:"inbox_id"`
				Address string `json:"address"`
			}
			if err == nil {
				err = res.structured(&in)
			}
			ws[i], errs[i] = &waiter{inbox: in.InboxID, addr: in.Address}, err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("create_inbox: %w", err)
		}
		setup.add(lat[i], "")
	}
	return ws, nil
}

// runRound starts every waiter, lets them block, snapshots the server,
// delivers one mail per inbox, and waits for every call to end.
func runRound(ctx context.Context, c *mcpClient, d *deliverer, o *waitOptions, ws []*waiter, rep *WaitReport) {
	var wg sync.WaitGroup
	for _, w := range ws {
		w.code = randomCode()
		wg.Go(func() { w.wait(ctx, c, o.WaitTimeout) })
	}
	sleep(ctx, o.Settle)
	snapshot(o, rep)
	for i, w := range ws {
		w.undelivered = d.send(w.addr, otpMail(w.addr, w.code, i)) != nil
		w.sent = time.Now()
	}
	wg.Wait()
}

// wait calls wait_for_otp and records when and how it ended.
func (w *waiter) wait(ctx context.Context, c *mcpClient, timeout time.Duration) {
	args, _ := json.Marshal(map[string]any{"inbox_id": w.inbox, "timeout": timeout.Seconds()})
	w.started = time.Now()
	res, err := c.call(ctx, "wait_for_otp", args)
	done := time.Now()
	var got struct {
		OTP string `json:"otp"`
	}
	if err == nil {
		err = res.structured(&got)
	}
	switch kind := errKind(err); {
	case kind != "":
		w.kind, w.err = kind, err.Error()
	case got.OTP != w.code:
		w.kind = "wrong_otp"
	}
	w.done = done
}

// snapshot records the server's memory and IMAP connections while every
// waiter blocks (the most seen over the rounds).
func snapshot(o *waitOptions, rep *WaitReport) {
	if o.mcp.PID <= 0 {
		return
	}
	if m, err := readMem(o.mcp.PID); err == nil && (rep.Waiting == nil || m.RSSKB > rep.Waiting.RSSKB) {
		rep.Waiting = &m
	}
	if rep.IMAPConns != nil {
		n, _ := tcpConns(o.mcp.PID, o.IMAPPort)
		rep.IMAPConns.Waiting = max(rep.IMAPConns.Waiting, n)
	}
}

// randomCode is a 6-digit code that does not start with 0.
func randomCode() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(900000))
	return fmt.Sprint(100000 + n.Int64())
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
