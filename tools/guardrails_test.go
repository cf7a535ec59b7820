package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// guardedClient serves the send tools of env's sandbox with the given send
// options and logger, through an in-process MCP client.
func guardedClient(t *testing.T, env *testEnv, send tools.SendOptions, opts tools.Options) *mailEnv {
	t.Helper()
	host, port := splitAddr(t, env.sandbox.SMTPAddr())
	send.From = testFrom
	ts, err := tools.New(tools.Deps{Mail: env.mail, Sent: env.mail, Send: send,
		Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain})}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	return &mailEnv{client: c, base: env.base}
}

func TestRecipientAllowList(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := guardedClient(t, env, tools.SendOptions{AllowedRecipients: []string{"qa@example.com", "test.example", "*.corp.example"}}, tools.Options{})
	for _, to := range []string{"QA@Example.com", "anyone@test.example", "a@eu.corp.example"} {
		var r tools.SendResult
		e.call(t, "send_email", map[string]any{"to": to, "subject": "allowed " + to, "body": "b"}, &r)
		if !r.Success {
			t.Errorf("send to %s = %+v, want success", to, r)
		}
	}
	for _, args := range []map[string]any{
		{"to": "boss@example.com"},
		{"to": "qa@example.com", "cc": "x@corp.example"}, // the apex is not a subdomain
		{"to": "qa@example.com", "bcc": []any{"leak@evil.example"}},
		{"to": "a@test.example.evil.example"},
	} {
		args["subject"], args["body"] = "refused", "b"
		text := e.wantError(t, "send_email", args, mcpkit.CodeRecipientNotAllowed)
		if !strings.Contains(text, "nothing was sent") {
			t.Errorf("error %q does not say nothing was sent", text)
		}
	}
	var found tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "refused"}, &found)
	if found.Total != 0 {
		t.Errorf("%d refused messages were delivered", found.Total)
	}
}

func TestSendCapPerHour(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := guardedClient(t, env, tools.SendOptions{MaxPerHour: 2}, tools.Options{})
	// An invalid send never reaches SMTP and costs nothing.
	e.wantError(t, "send_email", map[string]any{"to": "a@example.test", "subject": "x\r\nBcc: y@evil.example", "body": "b"}, mcpkit.CodeInvalidArgument)
	for i := range 2 {
		var r tools.SendResult
		e.call(t, "send_email", map[string]any{"to": "a@example.test", "subject": "capped", "body": "b"}, &r)
		if !r.Success {
			t.Fatalf("send %d = %+v", i, r)
		}
	}
	res := callTool(t, e.client, "send_email", map[string]any{"to": "a@example.test", "subject": "capped", "body": "b"})
	var body struct {
		Error struct {
			Code       string `json:"code"`
			Retryable  bool   `json:"retryable"`
			RetryAfter int    `json:"retry_after_seconds"`
		} `json:"error"`
	}
	structured(t, res, &body)
	if !res.IsError || body.Error.Code != "RATE_LIMITED" || !body.Error.Retryable || body.Error.RetryAfter < 3000 || body.Error.RetryAfter > 3600 {
		t.Fatalf("third send = %+v (isError %v), want RATE_LIMITED with retry_after_seconds near 3600", body, res.IsError)
	}
	var found tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "capped"}, &found)
	if found.Total != 2 {
		t.Errorf("%d capped messages delivered, want 2", found.Total)
	}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// auditLines decodes the audit lines of a JSON log.
func auditLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "audit" {
			out = append(out, m)
		}
	}
	return out
}

func TestAuditLog(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	env := newTestEnv(t, tools.Options{})
	e := guardedClient(t, env, tools.SendOptions{AllowedRecipients: []string{"example.test"}},
		tools.Options{Logger: logger, CallerID: func(context.Context) string { return "key-1234" }})
	const subject, body = "Quarterly secret plan", "the body says hunter2"
	var sent tools.SendResult
	e.call(t, "send_email", map[string]any{"to": []any{"a@example.test", "b@example.test"}, "cc": "c@example.test", "subject": subject, "body": body}, &sent)
	msg := findOne(t, e, "INBOX", subject)
	e.call(t, "read_email", map[string]any{"uid": msg.UID}, &tools.ReadResult{})
	e.call(t, "read_email", map[string]any{"uid": msg.UID, "mark_read": true}, &tools.ReadResult{})
	e.call(t, "mark_email", map[string]any{"uid": msg.UID, "flagged": true}, nil)
	e.call(t, "move_email", map[string]any{"uid": msg.UID, "to_folder": "Archive"}, nil)
	e.wantError(t, "move_email", map[string]any{"uid": msg.UID, "to_folder": "Archive"}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "send_email", map[string]any{"to": "x@evil.example", "subject": subject, "body": body}, mcpkit.CodeRecipientNotAllowed)

	lines := auditLines(t, logs.String())
	want := []struct{ tool, result string }{
		{"send_email", "ok"}, {"read_email", "ok"}, {"mark_email", "ok"}, {"move_email", "ok"},
		{"move_email", "MESSAGE_NOT_FOUND"}, {"send_email", "RECIPIENT_NOT_ALLOWED"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d audit lines, want %d (search and the plain read are not audited):\n%s", len(lines), len(want), logs.String())
	}
	for i, w := range want {
		if lines[i]["tool"] != w.tool || lines[i]["result"] != w.result || lines[i]["key_id"] != "key-1234" {
			t.Errorf("audit line %d = %v, want tool %s result %s key_id key-1234", i, lines[i], w.tool, w.result)
		}
	}
	if lines[0]["recipients"] != float64(3) || lines[0]["accepted"] != float64(3) || lines[0]["message_id"] != sent.MessageID {
		t.Errorf("send audit = %v, want 3 recipients, 3 accepted, message_id %s", lines[0], sent.MessageID)
	}
	if lines[3]["from_folder"] != nil || lines[3]["to_folder"] != "Archive" || lines[3]["uid"] == nil {
		t.Errorf("move audit = %v, want to_folder and uid", lines[3])
	}
	for _, secret := range []string{subject, body, "hunter2", "a@example.test", "x@evil.example"} {
		for _, l := range lines {
			if b, _ := json.Marshal(l); strings.Contains(string(b), secret) {
				t.Errorf("audit line %s contains %q", b, secret)
			}
		}
	}
}
