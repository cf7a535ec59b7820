package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// The mail tools under network faults: 16 goroutines call list_folders,
// search_emails, read_email and mark_email through an in-process MCP
// client while a faultproxy between the IMAP pool and the server (the
// in-process one, or Dovecot with EMAIL_MCP_TEST_DOVECOT=1) cuts every
// connection, stalls, or goes down and up. Every call must come back
// within its deadline plus faultproxy.HangMargin as a result or a
// CONNECTION_FAILED / CONNECTION_TIMEOUT error, never a protocol error or
// INTERNAL; afterwards a call must succeed within a bounded number of
// retries, and no goroutine may be left behind.

const (
	faultWorkers    = 16
	faultDeadline   = 3 * time.Second // of every call
	faultPoolSize   = 4
	recoverAttempts = 40 // 250 ms apart: twice the pool's longest dial backoff
	recoverPause    = 250 * time.Millisecond
)

// faultCodes are the answers a call may give while the network fails.
var faultCodes = []string{"ok", string(mcpkit.CodeConnectionFailed), string(mcpkit.CodeConnectionTimeout)}

// faultEnv is the mail tools over an IMAP pool that reaches its account
// through a faultproxy.
type faultEnv struct {
	acct   *mailtest.Account
	proxy  *faultproxy.Proxy
	mail   *imap.Client
	client *client.Client
	logs   *logCounter // of the pool and the tools
}

// logCounter is a slog.Handler that counts records by message and keeps
// the attributes of those whose message contains keep.
type logCounter struct {
	keep string
	mu   sync.Mutex
	n    map[string]int
	kept []string
}

func (h *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCounter) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logCounter) WithGroup(string) slog.Handler            { return h }

func (h *logCounter) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[r.Message]++
	var b strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	if h.keep != "" && strings.Contains(r.Message+b.String(), h.keep) {
		h.kept = append(h.kept, r.Message+b.String())
	}
	return nil
}

// count is the number of records with message msg.
func (h *logCounter) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[msg]
}

// matching returns the kept records.
func (h *logCounter) matching() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.kept)
}

// newFaultEnv builds the tools over a proxy to a fresh account. Call
// faultproxy.CheckLeaks before it.
func newFaultEnv(t *testing.T, popts faultproxy.Options) *faultEnv {
	t.Helper()
	e := &faultEnv{acct: mailtest.NewAccount(t), logs: &logCounter{keep: "both folders"}}
	popts.Target = e.acct.Addr()
	e.proxy = faultproxy.Start(t, popts)
	e.mail = imap.New(imap.Options{
		Host: e.proxy.Host(), Port: e.proxy.Port(), Username: e.acct.Username, Password: e.acct.Password,
		Security: imap.SecurityPlain, PoolSize: faultPoolSize,
		DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second, Logger: slog.New(e.logs),
	})
	t.Cleanup(func() { _ = e.mail.Close() })
	ts, err := tools.New(tools.Deps{Mail: e.mail}, tools.Options{Logger: slog.New(e.logs)})
	if err != nil {
		t.Fatal(err)
	}
	e.client, err = client.NewInProcessClient(ts.MCP())
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, e.client)
	return e
}

// tool calls a tool under ctx and returns its outcome, "ok" or the error
// code, and the result. A protocol error fails t.
func (e *faultEnv) tool(t *testing.T, ctx context.Context, name string, args map[string]any) (string, *mcp.CallToolResult) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := e.client.CallTool(ctx, req)
	if err != nil {
		t.Errorf("%s: protocol error %v, want a tool result", name, err)
		return "PROTOCOL_ERROR", nil
	}
	if !res.IsError {
		return "ok", res
	}
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == "" {
		t.Errorf("%s: error result without a code: %s", name, b)
		return "NO_CODE", res
	}
	return body.Error.Code, res
}

// decode is structured for other goroutines than the test's: it reports a
// failure with t.Errorf.
func decode(t *testing.T, res *mcp.CallToolResult, v any) {
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Errorf("structuredContent %s: %v", b, err)
	}
}

// expect fails t when outcome is not one of want.
func expect(t *testing.T, what, outcome string, want ...string) string {
	if !slices.Contains(want, outcome) {
		t.Errorf("%s answered %s, want one of %v", what, outcome, want)
	}
	return outcome
}

// seedInbox appends n small messages to INBOX, directly, and returns their
// UIDs.
func (e *faultEnv) seedInbox(t *testing.T, n int) []uint32 {
	t.Helper()
	var uids []uint32
	for i := range n {
		raw := fmt.Sprintf("From: Sender %d <s%d@example.test>\r\nTo: alice@example.test\r\nSubject: fault %d\r\n"+
			"Message-ID: <fault-%d@example.test>\r\nDate: Tue, 19 Mar 2024 10:00:00 +0000\r\n\r\nBody %d\r\n", i, i, i, i, i)
		uids = append(uids, e.acct.Append(t, "INBOX", []byte(raw)))
	}
	return uids
}

// loadCall is one tool call of the load, chosen by worker and turn.
func (e *faultEnv) loadCall(t *testing.T, uids []uint32) faultproxy.Call {
	return func(ctx context.Context, w, n int) string {
		uid := uids[(w*7+n)%len(uids)]
		var name string
		var args map[string]any
		switch (w + n) % 4 {
		case 0:
			name, args = "list_folders", map[string]any{"include_counts": true}
		case 1:
			name, args = "search_emails", map[string]any{"subject": "fault", "limit": 10}
		case 2:
			name, args = "read_email", map[string]any{"uid": uid}
		case 3:
			name, args = "mark_email", map[string]any{"uid": uid, "flagged": n%2 == 0}
		}
		outcome, _ := e.tool(t, ctx, name, args)
		return expect(t, name, outcome, faultCodes...)
	}
}

// runLoad puts the load on while fault runs, heals the proxy, waits for a
// call to succeed and logs the counts. fault returns the number of
// outages it caused (a stall, a down time), which the proxy does not count.
func (e *faultEnv) runLoad(t *testing.T, fault func() int) *faultproxy.Tally {
	t.Helper()
	uids := e.seedInbox(t, 20)
	stop := make(chan struct{})
	done := make(chan *faultproxy.Tally)
	go func() { done <- faultproxy.Load(t, faultWorkers, faultDeadline, stop, e.loadCall(t, uids)) }()
	events := fault()
	close(stop)
	ty := <-done
	if err := e.proxy.Heal(); err != nil {
		t.Fatalf("Heal() = %v", err)
	}
	tries := faultproxy.Recover(t, ty, recoverAttempts, recoverPause, faultDeadline, func(ctx context.Context) string {
		outcome, _ := e.tool(t, ctx, "search_emails", map[string]any{"subject": "fault"})
		return expect(t, "search_emails", outcome, faultCodes...)
	})
	if st := e.mail.Stats(); st.InUse != 0 || st.Open > faultPoolSize {
		t.Errorf("pool after the load: %+v, want nothing in use and at most %d open", st, faultPoolSize)
	}
	ps := e.proxy.Stats()
	t.Logf("FAULTS: test=%s injected=%d (cuts=%d rejected=%d outages=%d) calls=%d hung=%d lost=0 recovered_after=%d outcomes: %s",
		t.Name(), ps.Cuts+ps.Rejected+uint64(events), ps.Cuts, ps.Rejected, events, ty.Calls(), ty.Hung(), tries, ty)
	return ty
}

func TestFaultToolsCuts(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultEnv(t, faultproxy.Options{Seed: 1})
	cut := 0
	ty := e.runLoad(t, func() int {
		for range 12 {
			time.Sleep(150 * time.Millisecond)
			cut += e.proxy.CutAll()
		}
		time.Sleep(150 * time.Millisecond)
		return 0
	})
	if cut == 0 || ty.Count(string(mcpkit.CodeConnectionFailed)) == 0 || ty.Count("ok") == 0 {
		t.Errorf("%d connections cut, outcomes %s: want cuts that calls saw, and calls that succeeded", cut, ty)
	}
}

func TestFaultToolsStall(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultEnv(t, faultproxy.Options{Seed: 2})
	ty := e.runLoad(t, func() int {
		time.Sleep(300 * time.Millisecond)
		e.proxy.Stall()
		time.Sleep(faultDeadline + time.Second) // past every call's deadline
		e.proxy.Resume()
		time.Sleep(300 * time.Millisecond)
		return 1
	})
	if ty.Count(string(mcpkit.CodeConnectionTimeout)) == 0 {
		t.Errorf("outcomes %s: want calls that timed out in the stall", ty)
	}
}

func TestFaultToolsRestart(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultEnv(t, faultproxy.Options{Seed: 3})
	ty := e.runLoad(t, func() int {
		time.Sleep(300 * time.Millisecond)
		e.proxy.Refuse()
		e.proxy.CutAll()
		time.Sleep(2 * time.Second)
		if err := e.proxy.Up(); err != nil {
			t.Errorf("Up() = %v", err)
		}
		time.Sleep(300 * time.Millisecond)
		return 1
	})
	if ty.Count(string(mcpkit.CodeConnectionFailed)) == 0 {
		t.Errorf("outcomes %s: want calls that failed while the server was down", ty)
	}
}

func TestFaultToolsRandomCuts(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultEnv(t, faultproxy.Options{Seed: 4, ChunkSize: 512})
	e.proxy.SetCutProbability(0.02)
	ty := e.runLoad(t, func() int { time.Sleep(2 * time.Second); return 0 })
	if e.proxy.Stats().Cuts == 0 || ty.Count("ok") == 0 {
		t.Errorf("%d cuts, outcomes %s: want random cuts and calls that succeeded", e.proxy.Stats().Cuts, ty)
	}
}
