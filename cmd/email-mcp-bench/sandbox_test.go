package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

const sandboxPassword = "sandbox-test-password"

// startSandbox runs the embedded mail server on loopback ports.
func startSandbox(t *testing.T) *devmail.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sb, err := devmail.Start(ctx, devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Username: "sandbox", Password: sandboxPassword})
	if err != nil {
		t.Fatalf("devmail.Start() = %v", err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	return sb
}

// deliverAll sends n mails to rcpt through the sandbox's SMTP port.
func deliverAll(t *testing.T, sb *devmail.Server, rcpt string, n int) {
	t.Helper()
	d, err := dialDeliverer(t.Context(), sb.SMTPAddr(), false)
	if err != nil {
		t.Fatalf("dialDeliverer() = %v", err)
	}
	defer d.close()
	for i := range n {
		if err := d.send(rcpt, otpMail(rcpt, fmt.Sprint(100000+i), i)); err != nil {
			t.Fatalf("send() = %v", err)
		}
	}
}

func rawOpts(sb *devmail.Server, op string, uid uint, p plan) *rawOptions {
	return &rawOptions{Addr: sb.IMAPAddr(), User: "sandbox", Pass: sandboxPassword, TLS: false, Conns: 2,
		Folder: "INBOX", Op: op, Limit: 2, UID: uid, Plan: p, Timeout: 10 * time.Second}
}

// TestRawAgainstSandbox runs the bare client's search and read on the
// sandbox's IMAP server, and counts a missing message as such.
func TestRawAgainstSandbox(t *testing.T) {
	sb := startSandbox(t)
	deliverAll(t, sb, "someone@sandbox.localhost", 3)
	p := plan{Concurrency: 3, Count: 12, Warmup: 2}
	for _, tc := range []struct {
		op         string
		uid        uint
		wantOK     int
		wantErrors map[string]int
	}{
		{"search", 0, 12, map[string]int{}},
		{"read", 2, 12, map[string]int{}},
		{"read", 99, 0, map[string]int{"imap_not_found": 12}},
	} {
		s, err := runRaw(t.Context(), rawOpts(sb, tc.op, tc.uid, p))
		if err != nil {
			t.Fatalf("runRaw(%s %d) = %v", tc.op, tc.uid, err)
		}
		if s.Calls != 12 || s.OK != tc.wantOK || !sameCounts(s.Errors, tc.wantErrors) || s.Conns != 2 {
			t.Errorf("runRaw(%s %d) = calls %d ok %d errors %v conns %d, want 12, %d, %v, 2", tc.op, tc.uid, s.Calls, s.OK, s.Errors, s.Conns, tc.wantOK, tc.wantErrors)
		}
	}
	p0 := newRawPoolOrFail(t, rawOpts(sb, "search", 0, p))
	err := p0.with(t.Context(), func(rc *rawConn) error {
		n, err := rc.search("INBOX", 2)
		if err == nil && n != 2 {
			return fmt.Errorf("search fetched %d summaries, want the page of 2", n)
		}
		return err
	})
	if err != nil {
		t.Errorf("search() = %v", err)
	}
	if _, err := runRaw(t.Context(), &rawOptions{Addr: sb.IMAPAddr(), User: "sandbox", Pass: "wrong", Conns: 1, Folder: "INBOX", Op: "search", Limit: 1, Plan: p, Timeout: time.Second}); err == nil {
		t.Error("runRaw(wrong password) = nil error, want the login failure")
	}
}

func newRawPoolOrFail(t *testing.T, o *rawOptions) *rawPool {
	t.Helper()
	p, err := newRawPool(t.Context(), o)
	if err != nil {
		t.Fatalf("newRawPool() = %v", err)
	}
	t.Cleanup(p.close)
	return p
}

// newToolsServer serves email-mcp's tools over the sandbox, on a loopback
// httptest server behind the API key, as the binary does in sandbox mode.
func newToolsServer(t *testing.T, sb *devmail.Server) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(sb.IMAPAddr())
	n, _ := strconv.Atoi(port)
	mail := imap.New(imap.Options{Host: host, Port: n, Username: "sandbox", Password: sandboxPassword, Security: imap.SecurityPlain, PoolSize: 3})
	t.Cleanup(func() { _ = mail.Close() })
	ts, err := tools.New(tools.Deps{Mail: mail, Inbox: mail,
		Inboxes: tools.InboxOptions{Address: "inbox@" + devmail.DefaultDomain, Sandbox: true, WaitMax: time.Minute}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("tools.New() = %v", err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := transport.Handler(ts.Server, transport.Options{Auth: mw})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		srv.Close()
	})
	return srv.URL + "/mcp"
}

// TestWaitAgainstSandbox runs the wait mode end to end: inboxes made with
// create_inbox, wait_for_otp calls, delivery by SMTP, codes checked; then
// the IDLE floor on the same server.
func TestWaitAgainstSandbox(t *testing.T) {
	sb := startSandbox(t)
	url := newToolsServer(t, sb)
	o := &waitOptions{Waiters: 3, Rounds: 2, SMTPAddr: sb.SMTPAddr(), WaitTimeout: 20 * time.Second, Settle: 200 * time.Millisecond,
		mcp: loadOptions{URL: url, Key: testKey, Timeout: 30 * time.Second, PID: os.Getpid()}}
	rep, err := runWait(t.Context(), o)
	if err != nil {
		t.Fatalf("runWait() = %v", err)
	}
	if rep.Calls != 6 || rep.OK != 6 || len(rep.Errors) != 0 || len(rep.SamplesMS) != 6 || rep.SetupMS == nil || rep.SetupMS.Max <= 0 || rep.RSS == nil || rep.Waiting == nil {
		t.Errorf("runWait() = %+v, want 6 codes received, setup timed, RSS followed", rep)
	}
	raw := &waitOptions{Rounds: 3, SMTPAddr: sb.SMTPAddr(), WaitTimeout: 20 * time.Second, Rcpt: "floor@sandbox.localhost",
		raw: rawOptions{Addr: sb.IMAPAddr(), User: "sandbox", Pass: sandboxPassword, Folder: "INBOX"}}
	frep, err := runWaitRaw(t.Context(), raw)
	if err != nil {
		t.Fatalf("runWaitRaw() = %v", err)
	}
	if frep.Calls != 3 || frep.OK != 3 || frep.Mode != "wait-raw" || len(frep.SamplesMS) != 3 {
		t.Errorf("runWaitRaw() = %+v, want 3 EXISTS seen", frep)
	}
}

// TestWaitNamesItsFailures: waits that end before their mail arrives (a
// timeout of 1 s, mail sent after 1.5 s) are counted as WAIT_TIMEOUT and
// named in Failures with their inbox address, to be traced in the log.
func TestWaitNamesItsFailures(t *testing.T) {
	sb := startSandbox(t)
	url := newToolsServer(t, sb)
	o := &waitOptions{Waiters: 2, Rounds: 1, SMTPAddr: sb.SMTPAddr(), WaitTimeout: time.Second, Settle: 1500 * time.Millisecond,
		mcp: loadOptions{URL: url, Key: testKey, Timeout: 30 * time.Second}}
	rep, err := runWait(t.Context(), o)
	if err != nil {
		t.Fatalf("runWait() = %v", err)
	}
	if rep.OK != 0 || rep.Errors["tool_WAIT_TIMEOUT"] != 2 || len(rep.Failures) != 2 {
		t.Fatalf("runWait() = %+v, want 2 WAIT_TIMEOUT named in Failures", rep)
	}
	for _, f := range rep.Failures {
		if f.Outcome != "tool_WAIT_TIMEOUT" || !strings.HasSuffix(f.Address, "@sandbox.localhost") || !strings.Contains(f.Error, "WAIT_TIMEOUT") {
			t.Errorf("Failures has %+v, want a WAIT_TIMEOUT with its inbox address", f)
		}
	}
}

// TestSink: the sink accepts a login and a message, counts it, writes its
// address and stops with its context.
func TestSink(t *testing.T) {
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan *SinkReport, 1)
	go func() {
		rep, err := runSink(ctx, &sinkOptions{serverOptions{Addr: "127.0.0.1:0", AddrFile: addrFile, Max: time.Minute}})
		if err != nil {
			t.Errorf("runSink() = %v", err)
		}
		done <- rep
	}()
	var addr string
	for i := 0; i < 200 && addr == ""; i++ {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			addr = string(b[:len(b)-1])
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if addr == "" {
		cancel()
		t.Fatal("the sink wrote no address")
	}
	d, err := dialDeliverer(t.Context(), addr, false)
	if err != nil {
		t.Fatal(err)
	}
	msg := otpMail("x@example.test", "123456", 1)
	if err := d.send("x@example.test", msg); err != nil {
		t.Errorf("send() = %v", err)
	}
	d.close()
	cancel()
	var rep *SinkReport
	select {
	case rep = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after cancel")
	}
	if rep == nil || rep.Messages != 1 || rep.Bytes < int64(len(msg)) {
		t.Errorf("runSink() = %+v, want 1 message of at least %d bytes", rep, len(msg))
	}
}

// TestCompareAgainstSandbox runs search_emails through the tools and the
// same IMAP work with the bare client, alternately.
func TestCompareAgainstSandbox(t *testing.T) {
	sb := startSandbox(t)
	deliverAll(t, sb, "someone@sandbox.localhost", 4)
	url := newToolsServer(t, sb)
	r := rawOpts(sb, "search", 0, plan{Concurrency: 2, Count: 9, Warmup: 1})
	m := &loadOptions{URL: url, Key: testKey, Timeout: 10 * time.Second, Plan: r.Plan, PID: os.Getpid()}
	m.Tool, m.Args = toolFor(r)
	c, err := runCompare(t.Context(), &compareOptions{mcp: m, raw: r, slices: 2})
	if err != nil {
		t.Fatalf("runCompare() = %v", err)
	}
	if c.MCP.OK != 9 || c.Raw.OK != 9 || c.Slices != 2 || c.Ratio.P50 <= 0 || c.Ratio.Throughput <= 0 || c.MCP.CPU == nil || c.MCP.CPU.ServerMS == nil {
		t.Errorf("runCompare() = %+v, want 9 calls on each side and the ratios", c)
	}
	if c.MCP.Op != "search_emails" || c.Raw.Op != "search" || c.Raw.Conns != 2 {
		t.Errorf("runCompare() sides = %s/%s conns %d", c.MCP.Op, c.Raw.Op, c.Raw.Conns)
	}
}
