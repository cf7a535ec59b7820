package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// capSMTP is a submission server that records the subject of every
// message it accepts and refuses (550) every recipient whose address
// starts with "reject".
type capSMTP struct {
	mu       sync.Mutex
	subjects []string
}

func (r *capSMTP) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &capSMTPSession{r: r}, nil }

func (r *capSMTP) delivered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.subjects...)
}

type capSMTPSession struct{ r *capSMTP }

func (s *capSMTPSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *capSMTPSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if strings.HasPrefix(to, "reject") {
		return &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	return nil
}
func (s *capSMTPSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, m.Body)
	s.r.mu.Lock()
	s.r.subjects = append(s.r.subjects, m.Header.Get("Subject"))
	s.r.mu.Unlock()
	return nil
}
func (s *capSMTPSession) Reset()        {}
func (s *capSMTPSession) Logout() error { return nil }

// replicaSet is n tools servers over one IMAP account (each with an IMAP
// pool of its own, as separate processes have) and one recording SMTP
// server: n replicas of email-mcp.
type replicaSet struct {
	acct    *mailtest.Account
	smtp    *capSMTP
	clients []*client.Client
}

func newReplicas(t testing.TB, n, perHour int) *replicaSet {
	t.Helper()
	return newReplicasLog(t, n, perHour, slog.DiscardHandler)
}

// newReplicasLog is newReplicas with the replicas logging to h.
func newReplicasLog(t testing.TB, n, perHour int, h slog.Handler) *replicaSet {
	t.Helper()
	rs := &replicaSet{acct: mailtest.NewAccount(t), smtp: &capSMTP{}}
	t.Logf("%d replicas over one account (Dovecot: %v)", n, rs.acct.Dovecot)
	host, port := serveSMTP(t, gosmtp.NewServer(rs.smtp))
	for range n {
		mc := imap.New(imap.Options{Host: rs.acct.Host, Port: rs.acct.Port, Username: rs.acct.Username, Password: rs.acct.Password,
			Security: imap.SecurityPlain, PoolSize: 3})
		t.Cleanup(func() { _ = mc.Close() })
		ts, err := tools.New(tools.Deps{Mail: mc, Sent: mc, Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain}),
			Send: tools.SendOptions{From: "agent@example.test", SaveSent: "false", MaxPerHour: perHour}},
			tools.Options{Logger: slog.New(h)})
		if err != nil {
			t.Fatal(err)
		}
		rs.clients = append(rs.clients, inProcessClient(t, ts))
	}
	return rs
}

// outcome is one call's answer: its result or its error.
type outcome struct {
	res tools.SendResult
	err struct {
		Code              string `json:"code"`
		RetryAfterSeconds int    `json:"retry_after_seconds"`
		InProgress        bool   `json:"in_progress"`
	}
	failed bool
	text   string
}

// sendAll makes n calls of tool at once, call i on replica i%len, with the
// arguments args(i), and returns the outcomes in call order.
func (rs *replicaSet) sendAll(t *testing.T, tool string, n int, args func(i int) map[string]any) []outcome {
	t.Helper()
	out := make([]outcome, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := tryCallTool(rs.clients[i%len(rs.clients)], tool, args(i))
			if err != nil {
				errs[i] = err
				return
			}
			out[i].failed, out[i].text = res.IsError, res.Content[0].(mcp.TextContent).Text
			b, _ := json.Marshal(res.StructuredContent)
			if res.IsError {
				var body struct {
					Error json.RawMessage `json:"error"`
				}
				_ = json.Unmarshal(b, &body)
				errs[i] = json.Unmarshal(body.Error, &out[i].err)
			} else {
				errs[i] = json.Unmarshal(b, &out[i].res)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return out
}

func mailArgs(to, subject string) map[string]any {
	return map[string]any{"to": to, "subject": subject, "body": "hello"}
}

// TestSendCapAcrossReplicas: SEND_MAX_PER_HOUR=5 is one cap for the
// account, however many replicas send: 20 sends at once spread over two
// (and three) replicas deliver exactly 5; the 15 others are RATE_LIMITED
// with retry_after_seconds. Each replica counted alone let 5 each out.
func TestSendCapAcrossReplicas(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d replicas", n), func(t *testing.T) {
			rs := newReplicas(t, n, 5)
			out := rs.sendAll(t, "send_email", 20, func(i int) map[string]any { return mailArgs("bob@example.test", fmt.Sprintf("cap %d", i)) })
			sent, limited := 0, 0
			for i, o := range out {
				switch {
				case !o.failed && o.res.Success:
					sent++
				case o.err.Code == "RATE_LIMITED" && o.err.RetryAfterSeconds > 0 && o.err.RetryAfterSeconds <= 3600:
					limited++
				default:
					t.Errorf("send %d = %s", i, o.text)
				}
			}
			if got := len(rs.smtp.delivered()); sent != 5 || limited != 15 || got != 5 {
				t.Errorf("20 sends over %d replicas with a cap of 5: %d succeeded, %d RATE_LIMITED, %d delivered; want 5, 15, 5", n, sent, limited, got)
			}
		})
	}
}

// TestSendCapRejectedDoesNotCount: a send the SMTP server refuses
// delivered nothing and frees its place in the cap on every replica.
func TestSendCapRejectedDoesNotCount(t *testing.T) {
	rs := newReplicas(t, 2, 2)
	for i := range 4 { // one after the other: a send in progress holds its place
		rs.clients = append(rs.clients[1:], rs.clients[0])
		o := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("reject-me@example.test", fmt.Sprintf("refused %d", i)) })
		if o[0].err.Code != "SEND_REJECTED" {
			t.Fatalf("send %d to a refused recipient = %s, want SEND_REJECTED", i, o[0].text)
		}
	}
	out := rs.sendAll(t, "send_email", 3, func(i int) map[string]any { return mailArgs("bob@example.test", fmt.Sprintf("after %d", i)) })
	sent := 0
	for _, o := range out {
		if !o.failed {
			sent++
		} else if o.err.Code != "RATE_LIMITED" {
			t.Errorf("send = %s", o.text)
		}
	}
	if got := len(rs.smtp.delivered()); sent != 2 || got != 2 {
		t.Errorf("cap 2 after 4 refused sends: %d succeeded, %d delivered; want 2, 2", sent, got)
	}
}

// TestIdempotencyKeyAcrossReplicas: ten calls with one idempotency_key, at
// once and over two replicas, deliver one message; every call answers its
// message_id, nine of them with replayed: true. A later repeat replays too;
// another key sends; the key on another tool is refused.
func TestIdempotencyKeyAcrossReplicas(t *testing.T) {
	rs := newReplicas(t, 2, 0)
	args := func(int) map[string]any {
		a := mailArgs("bob@example.test", "once")
		a["idempotency_key"] = "order-4711-confirmation"
		return a
	}
	out := rs.sendAll(t, "send_email", 10, args)
	replayed := 0
	for i, o := range out {
		if o.failed || !o.res.Success || o.res.MessageID != out[0].res.MessageID || o.res.MessageID == "" {
			t.Fatalf("call %d = %s (first message_id %q)", i, o.text, out[0].res.MessageID)
		}
		if o.res.Replayed {
			replayed++
		}
	}
	if got := rs.smtp.delivered(); len(got) != 1 || replayed != 9 {
		t.Fatalf("10 calls with one key: %d delivered, %d replayed; want 1, 9", len(got), replayed)
	}
	again := rs.sendAll(t, "send_email", 2, args)
	for _, o := range again {
		if !o.res.Replayed || o.res.MessageID != out[0].res.MessageID || len(o.res.Accepted) != 1 {
			t.Errorf("later repeat = %s, want the first result replayed", o.text)
		}
	}
	other := rs.sendAll(t, "send_email", 1, func(int) map[string]any {
		a := mailArgs("bob@example.test", "other key")
		a["idempotency_key"] = "order-4712-confirmation"
		return a
	})
	if other[0].failed || other[0].res.Replayed || other[0].res.MessageID == out[0].res.MessageID {
		t.Errorf("another key = %s, want a new send", other[0].text)
	}
	withFiles := rs.sendAll(t, "send_email_with_attachments", 1, func(int) map[string]any {
		a := args(0)
		a["attachment_paths"] = []any{"uploads/x.pdf"}
		return a
	})
	if withFiles[0].err.Code != "INVALID_ARGUMENT" || !strings.Contains(withFiles[0].text, "used by send_email") {
		t.Errorf("the key on another tool = %s, want INVALID_ARGUMENT naming send_email", withFiles[0].text)
	}
	if got := len(rs.smtp.delivered()); got != 2 {
		t.Errorf("%d delivered in all, want 2", got)
	}
}

// TestIdempotencyKeyFreedByFailedSend: a first send that delivered
// nothing (refused at SMTP) keeps no result: the same key then sends.
// Repeats of one key take one place of the cap.
func TestIdempotencyKeyFreedByFailedSend(t *testing.T) {
	rs := newReplicas(t, 2, 1)
	first := rs.sendAll(t, "send_email", 1, func(int) map[string]any {
		a := mailArgs("reject-me@example.test", "refused")
		a["idempotency_key"] = "k1"
		return a
	})
	if first[0].err.Code != "SEND_REJECTED" {
		t.Fatalf("first send = %s, want SEND_REJECTED", first[0].text)
	}
	out := rs.sendAll(t, "send_email", 4, func(int) map[string]any {
		a := mailArgs("bob@example.test", "retried")
		a["idempotency_key"] = "k1"
		return a
	})
	for i, o := range out {
		if o.failed || o.res.MessageID != out[0].res.MessageID {
			t.Errorf("call %d after a refused first send = %s", i, o.text)
		}
	}
	if got := len(rs.smtp.delivered()); got != 1 {
		t.Errorf("%d delivered, want 1 (cap 1, one key)", got)
	}
}

// TestIdempotencyKeyBounded: a key over 200 characters is refused before
// anything is sent.
func TestIdempotencyKeyBounded(t *testing.T) {
	rs := newReplicas(t, 1, 0)
	out := rs.sendAll(t, "send_email", 1, func(int) map[string]any {
		a := mailArgs("bob@example.test", "long key")
		a["idempotency_key"] = strings.Repeat("k", 201)
		return a
	})
	if out[0].err.Code != "INVALID_ARGUMENT" || len(rs.smtp.delivered()) != 0 {
		t.Errorf("201-character key = %s", out[0].text)
	}
}

// TestNoCapNoRecords: with SEND_MAX_PER_HOUR=0 and no key a send leaves
// no record in the mailbox.
func TestNoCapNoRecords(t *testing.T) {
	rs := newReplicas(t, 1, 0)
	if out := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "plain") }); out[0].failed {
		t.Fatalf("send = %s", out[0].text)
	}
	c := rs.acct.Client(t)
	l, err := c.List("", "email-mcp-*", nil).Collect()
	if err != nil || len(l) != 0 {
		t.Errorf("LIST email-mcp-* = %d folders, %v; want none", len(l), err)
	}
}

// TestSendCapHourIsTheServers: the cap counts the records of the last hour
// by their INTERNALDATE. A record stored two hours ago does not count and is
// removed; one of 30 minutes ago counts, and the refusal says to come back
// in about 30 minutes.
func TestSendCapHourIsTheServers(t *testing.T) {
	rs := newReplicas(t, 2, 1)
	rs.acct.CreateFolder(t, "email-mcp-sends")
	rec := []byte("From: email-mcp <send-records@email-mcp.invalid>\r\nSubject: email-mcp send record (count)\r\nX-Email-Mcp-Send: count old\r\n\r\nx\r\n")
	old := rs.acct.AppendAt(t, "email-mcp-sends", rec, time.Now().Add(-2*time.Hour))
	if out := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "after old") }); out[0].failed {
		t.Fatalf("send with a record of two hours ago = %s, want sent", out[0].text)
	}
	c := rs.acct.Client(t)
	if _, err := c.Select("email-mcp-sends", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	found, err := c.UIDSearch(&goimap.SearchCriteria{UID: []goimap.UIDSet{goimap.UIDSetNum(goimap.UID(old))}}, nil).Wait()
	if err != nil || len(found.AllUIDs()) != 0 {
		t.Errorf("the record of two hours ago is still there (%v, %v)", found, err)
	}
	rs2 := newReplicas(t, 1, 1)
	rs2.acct.CreateFolder(t, "email-mcp-sends")
	rs2.acct.AppendAt(t, "email-mcp-sends", rec, time.Now().Add(-30*time.Minute))
	out := rs2.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "after recent") })
	if wait := out[0].err.RetryAfterSeconds; out[0].err.Code != "RATE_LIMITED" || wait < 1790 || wait > 1810 {
		t.Errorf("send with a record of 30 minutes ago and a cap of 1 = %s (retry_after_seconds %d), want RATE_LIMITED in about 1800 s", out[0].text, wait)
	}
}

// TestIdempotencyKeyMaybeDelivered: a first send whose answer was lost
// (maybe_delivered) keeps its key: the repeat, with the connection fine
// again, answers that error with replayed: true and sends nothing.
func TestIdempotencyKeyMaybeDelivered(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newSendEnv(t, 1)
	var cuts atomic.Int32
	e.proxy.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
		if d == faultproxy.Downstream && bytes.Contains(chunk, []byte("OK: queued")) && cuts.Add(1) == 1 {
			return faultproxy.Cut
		}
		return faultproxy.Forward
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := map[string]any{"to": "bob@example.test", "subject": "lost answer", "body": "hello", "idempotency_key": "lost-1"}
	for i, want := range []bool{false, true} {
		outcome, res := e.tool(t, ctx, "send_email", args)
		var body struct {
			Error struct {
				MaybeDelivered bool `json:"maybe_delivered"`
				Replayed       bool `json:"replayed"`
			} `json:"error"`
		}
		decode(t, res, &body)
		if outcome != string(mcpkit.CodeConnectionFailed) || !body.Error.MaybeDelivered || body.Error.Replayed != want {
			t.Errorf("call %d = %s %+v, want CONNECTION_FAILED with maybe_delivered, replayed %v", i, outcome, body.Error, want)
		}
	}
	if n := e.deliveredCount(t, "lost answer"); n != 1 || cuts.Load() != 1 {
		t.Errorf("%d copies delivered, %d answers seen; want 1, 1 (the repeat sent nothing)", n, cuts.Load())
	}
}

// TestRecordsCannotBeMovedAway: move_email refuses to take a send record
// out of its folder, which would undo the cap.
func TestRecordsCannotBeMovedAway(t *testing.T) {
	rs := newReplicas(t, 1, 1)
	if out := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "one") }); out[0].failed {
		t.Fatalf("send = %s", out[0].text)
	}
	out := rs.sendAll(t, "move_email", 1, func(int) map[string]any {
		return map[string]any{"uid": 1, "from_folder": "email-mcp-sends", "to_folder": "Trash"}
	})
	if out[0].err.Code != "INVALID_ARGUMENT" || !strings.Contains(out[0].text, "send records") {
		t.Errorf("move_email out of email-mcp-sends = %s, want INVALID_ARGUMENT", out[0].text)
	}
	if again := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "two") }); again[0].err.Code != "RATE_LIMITED" {
		t.Errorf("second send with a cap of 1 = %s, want RATE_LIMITED", again[0].text)
	}
}

// BenchmarkSendRecords is one send_email with and without the mailbox's
// records: no cap, SEND_MAX_PER_HOUR (a reservation: APPEND, then a
// synced UID SEARCH and UID FETCH of the hour's records), and a cap with an
// idempotency_key (a claim and a result record more). Run it with
// -benchtime 100x: the cap's folder then holds at most 100 records, the
// default cap.
func BenchmarkSendRecords(b *testing.B) {
	for _, bc := range []struct {
		name    string
		perHour int
		key     bool
	}{{"no cap", 0, false}, {"cap", 1 << 30, false}, {"cap and key", 1 << 30, true}} {
		b.Run(bc.name, func(b *testing.B) {
			rs := newReplicas(b, 1, bc.perHour)
			i := 0
			for b.Loop() {
				i++
				args := mailArgs("bob@example.test", "bench")
				if bc.key {
					args["idempotency_key"] = fmt.Sprintf("bench-%d", i)
				}
				res, err := tryCallTool(rs.clients[0], "send_email", args)
				if err != nil || res.IsError {
					b.Fatalf("send %d: %v %v", i, err, res)
				}
			}
		})
	}
}

// lockedBuffer is a log sink for several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestReplayAudited: the audit line of a replayed send says replayed=true,
// so that the log does not count it as a second message.
func TestReplayAudited(t *testing.T) {
	var logs lockedBuffer
	rs := newReplicasLog(t, 1, 0, slog.NewTextHandler(&logs, nil))
	args := func(int) map[string]any {
		a := mailArgs("bob@example.test", "audited")
		a["idempotency_key"] = "audit-1"
		return a
	}
	rs.sendAll(t, "send_email", 1, args)
	rs.sendAll(t, "send_email", 1, args)
	var audits []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "msg=audit") {
			audits = append(audits, line)
		}
	}
	if len(audits) != 2 || strings.Contains(audits[0], "replayed") || !strings.Contains(audits[1], "replayed=true") {
		t.Errorf("audit lines = %q, want the second one with replayed=true", audits)
	}
}

// TestSendCapPrunesManyOld: more expired records than one command may
// remove (a large cap, or records a stopped replica left) are all removed
// by the next send, in batches.
func TestSendCapPrunesManyOld(t *testing.T) {
	rs := newReplicas(t, 1, 1)
	rs.acct.CreateFolder(t, "email-mcp-sends")
	rec := []byte("From: email-mcp <send-records@email-mcp.invalid>\r\nSubject: email-mcp send record (count)\r\nX-Email-Mcp-Send: count old\r\n\r\nx\r\n")
	for range 1200 {
		rs.acct.AppendAt(t, "email-mcp-sends", rec, time.Now().Add(-2*time.Hour))
	}
	if out := rs.sendAll(t, "send_email", 1, func(int) map[string]any { return mailArgs("bob@example.test", "after many") }); out[0].failed {
		t.Fatalf("send = %s", out[0].text)
	}
	c := rs.acct.Client(t)
	if _, err := c.Select("email-mcp-sends", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	left, err := c.UIDSearch(&goimap.SearchCriteria{}, nil).Wait()
	if err != nil || len(left.AllUIDs()) != 1 {
		t.Errorf("after the send the folder holds %d records (%v), want 1 (its own)", len(left.AllUIDs()), err)
	}
}
