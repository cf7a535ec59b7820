package tools_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// send_email through a faultproxy between the SMTP submission and the
// sandbox (which delivers into its own INBOX, read directly): a send cut
// before the server's 250 is an error result (CONNECTION_FAILED or
// CONNECTION_TIMEOUT), never a success; a send whose 250 came back is a
// success and its mail is there. SMTP runs in-process in both tiers.

// sendEnv is the send tools over a proxied SMTP and a direct IMAP.
type sendEnv struct {
	faultEnv
	inbox *imap.Client // the sandbox's IMAP, not proxied
}

func newSendEnv(t *testing.T, seed uint64) *sendEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sb, err := devmail.Start(ctx, devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Username: "sandbox", Password: "pw-for-tests"})
	if err != nil {
		t.Fatalf("devmail.Start() = %v", err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	host, port := splitAddr(t, sb.IMAPAddr())
	e := &sendEnv{}
	e.logs = &logCounter{}
	e.inbox = imap.New(imap.Options{Host: host, Port: port, Username: "sandbox", Password: "pw-for-tests", Security: imap.SecurityPlain, PoolSize: 2})
	t.Cleanup(func() { _ = e.inbox.Close() })
	e.proxy = faultproxy.Start(t, faultproxy.Options{Target: sb.SMTPAddr(), Seed: seed, ChunkSize: 1024})
	sender := smtp.New(smtp.Options{Host: e.proxy.Host(), Port: e.proxy.Port(), Security: smtp.SecurityPlain,
		DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second, SubmissionTimeout: 2 * time.Second})
	ts, err := tools.New(tools.Deps{Mail: e.inbox, Sender: sender, Sent: e.inbox,
		Send: tools.SendOptions{From: testFrom, SaveSent: "false"}}, tools.Options{Logger: slog.New(e.logs)})
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

// send calls send_email with a body of about size bytes under the hang
// watchdog and returns the outcome and the success flag of the result.
func (e *sendEnv) send(t *testing.T, ty *faultproxy.Tally, subject string, size int) (string, bool) {
	var ok bool
	outcome := faultproxy.Once(t, ty, moveDeadline, func(ctx context.Context) string {
		outcome, res := e.tool(t, ctx, "send_email", map[string]any{
			"to": "bob@example.test", "subject": subject, "body": strings.Repeat("Lorem ipsum dolor sit amet.\n", size/28+1),
		})
		if outcome == "ok" {
			var r tools.SendResult
			decode(t, res, &r)
			ok = r.Success
		}
		return expect(t, "send_email", outcome, faultCodes...)
	})
	return outcome, ok
}

// deliveredCount counts the sandbox's INBOX messages with subject.
func (e *sendEnv) deliveredCount(t *testing.T, subject string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := e.inbox.Search(ctx, "INBOX", imap.SearchCriteria{Subject: subject}, imap.PageRequest{Limit: 10})
	if err != nil {
		t.Fatalf("Search(%q) = %v", subject, err)
	}
	return res.Total
}

func TestFaultSendEmail(t *testing.T) {
	quitCut := func(p *faultproxy.Proxy) {
		p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
			if d == faultproxy.Upstream && bytes.HasPrefix(chunk, []byte("QUIT")) {
				return faultproxy.Cut
			}
			return faultproxy.Forward
		})
	}
	tests := []struct {
		name      string
		fault     func(p *faultproxy.Proxy)
		want      []string
		delivered int
	}{
		{"cut mid-DATA", func(p *faultproxy.Proxy) { p.SetCutAfter(40 << 10) }, []string{string(mcpkit.CodeConnectionFailed)}, 0},
		{"cut at QUIT, after the 250", quitCut, []string{"ok"}, 1},
		{"stall", (*faultproxy.Proxy).Stall, []string{string(mcpkit.CodeConnectionTimeout)}, 0},
		{"server down", (*faultproxy.Proxy).Down, []string{string(mcpkit.CodeConnectionFailed)}, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			e := newSendEnv(t, uint64(i))
			defer e.proxy.Resume()
			tt.fault(e.proxy)
			subject := fmt.Sprintf("fault send %d", i)
			outcome, ok := e.send(t, nil, subject, 96<<10)
			expect(t, "send_email", outcome, tt.want...)
			if ok != (outcome == "ok") {
				t.Errorf("send_email answered %s with success %v", outcome, ok)
			}
			if n := e.deliveredCount(t, subject); n != tt.delivered {
				t.Errorf("%d copies delivered, want %d", n, tt.delivered)
			}
			if wantCut, cuts := strings.HasPrefix(tt.name, "cut "), e.proxy.Stats().Cuts; wantCut != (cuts > 0) {
				t.Errorf("the proxy cut %d times: want a cut %v (the fault must fire)", cuts, wantCut)
			}
		})
	}
}

// TestFaultSendAnswerLost: the connection breaks after the whole message
// went out, before the server's answer to it arrives. The sandbox stored the
// mail, so the result must not say "retry": it says the message may have
// been delivered (retryable false, maybe_delivered true).
func TestFaultSendAnswerLost(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newSendEnv(t, 1)
	e.proxy.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
		if d == faultproxy.Downstream && bytes.Contains(chunk, []byte("OK: queued")) {
			return faultproxy.Cut
		}
		return faultproxy.Forward
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	outcome, res := e.tool(t, ctx, "send_email", map[string]any{"to": "bob@example.test", "subject": "answer lost", "body": "hello"})
	if e.proxy.Stats().Cuts == 0 {
		t.Fatal("the proxy never saw the answer to the message: the test cut nothing")
	}
	if outcome != string(mcpkit.CodeConnectionFailed) {
		t.Fatalf("send_email = %s, want %s", outcome, mcpkit.CodeConnectionFailed)
	}
	var body struct {
		Error struct {
			Message        string `json:"message"`
			Retryable      bool   `json:"retryable"`
			MaybeDelivered bool   `json:"maybe_delivered"`
		} `json:"error"`
	}
	decode(t, res, &body)
	if body.Error.Retryable || !body.Error.MaybeDelivered || !strings.Contains(body.Error.Message, "may have been delivered") {
		t.Errorf("error = %+v, want retryable false, maybe_delivered true and a message that says so", body.Error)
	}
	if n := e.deliveredCount(t, "answer lost"); n != 1 {
		t.Errorf("%d copies delivered, want 1 (the sandbox stores before it answers)", n)
	}
}

// send_email from 8 goroutines under random cuts: every success was
// delivered exactly once.
func TestFaultSendEmailRandomCuts(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newSendEnv(t, 7)
	e.proxy.SetCutProbability(0.03)
	var (
		mu        sync.Mutex
		succeeded []string
		ty        = &faultproxy.Tally{}
		wg        sync.WaitGroup
	)
	for w := range 8 {
		wg.Go(func() {
			for n := range 6 {
				subject := fmt.Sprintf("random send w%d n%d", w, n)
				outcome, ok := e.send(t, ty, subject, 6<<10)
				if outcome == "hung" {
					return
				}
				if ok {
					mu.Lock()
					succeeded = append(succeeded, subject)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	lost := 0
	for _, s := range succeeded {
		if e.deliveredCount(t, s) != 1 {
			lost++
		}
	}
	ps := e.proxy.Stats()
	t.Logf("FAULTS: test=%s injected=%d calls=%d hung=%d lost=%d successes=%d outcomes: %s",
		t.Name(), ps.Cuts, ty.Calls(), ty.Hung(), lost, len(succeeded), ty)
	if lost > 0 {
		t.Errorf("%d of %d successful sends were not delivered exactly once", lost, len(succeeded))
	}
	if ps.Cuts == 0 || len(succeeded) == 0 || ty.Count(string(mcpkit.CodeConnectionFailed)) == 0 {
		t.Errorf("%d cuts, outcomes %s: want cuts that failed sends, and sends that succeeded", ps.Cuts, ty)
	}
}
