package tools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

// rawStdio is a stdio session with ts: raw JSON-RPC lines in, lines out.
type rawStdio struct {
	in   *io.PipeWriter
	out  *bufio.Scanner
	next int
	done chan error
}

func startRawStdio(t *testing.T, ts *tools.Server) *rawStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &rawStdio{in: inW, out: bufio.NewScanner(outR), next: 100, done: make(chan error, 1)}
	s.out.Buffer(make([]byte, 1<<20), 8<<20)
	go func() { s.done <- transport.ServeStdio(ctx, ts.Server, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() {
		_ = inW.Close()
		cancel()
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			t.Error("ServeStdio did not end after stdin closed")
		}
	})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.wait(t, 1)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// wait reads stdout lines until the answer with id; at most 1000 lines.
func (s *rawStdio) wait(t *testing.T, id int) json.RawMessage {
	t.Helper()
	for range 1000 {
		if !s.out.Scan() {
			t.Fatalf("stdout ended before answer %d: %v", id, s.out.Err())
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(s.out.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", s.out.Text())
		}
		if msg.ID != nil && *msg.ID == id {
			if msg.Error != nil {
				return msg.Error
			}
			return msg.Result
		}
	}
	t.Fatalf("no answer %d in 1000 lines", id)
	return nil
}

// rawResult is the part of a CallToolResult the tests look at.
type rawResult struct {
	IsError           bool                    `json:"isError"`
	Content           []struct{ Text string } `json:"content"`
	StructuredContent json.RawMessage         `json:"structuredContent"`
}

func (r rawResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// call sends a tools/call whose arguments are the raw JSON args, exactly as
// a client writes them on the wire.
func (s *rawStdio) call(t *testing.T, name, args string) rawResult {
	t.Helper()
	s.next++
	id := s.next
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args))
	raw := s.wait(t, id)
	var r rawResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s(%s): answer %s: %v", name, args, raw, err)
	}
	return r
}

// inputSchemas compiles the inputSchema of every tool of tools/list.
func (s *rawStdio) inputSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	s.next++
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, s.next))
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(s.wait(t, s.next), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, tool := range list.Tools {
		out[tool.Name] = compileSchema(t, tool.Name, tool.InputSchema)
	}
	return out
}

func validAgainstSchema(t *testing.T, schemas map[string]*jsonschema.Schema, tool, args string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		t.Fatal(err)
	}
	return schemas[tool].Validate(v)
}

// TestIntegralNumberForIntegerArgument: the inputSchemas declare max_chars,
// offset, limit and attachment_index as JSON Schema "integer", which 100.0
// and 1e1 are (a number with a zero fractional part). A client that writes
// them (Python's json.dumps of a float, many LLM runtimes) sends a valid
// call; the binding must not refuse it as "must be an integer".
func TestIntegralNumberForIntegerArgument(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	env.sendMail(t, "agent@sandbox.localhost", "integral numbers")
	s := startRawStdio(t, env.tools)
	schemas := s.inputSchemas(t)
	calls := []struct{ tool, args string }{
		{"read_email", `{"uid":1,"max_chars":100.0}`},
		{"read_email", `{"uid":1,"offset":0.0}`},
		{"search_emails", `{"limit":1e1}`},
		{"search_emails", `{"limit":5.0}`},
		{"list_inboxes", `{"limit":2.0}`},
	}
	for _, c := range calls {
		if err := validAgainstSchema(t, schemas, c.tool, c.args); err != nil {
			t.Fatalf("%s(%s) is not valid against its own inputSchema: %v", c.tool, c.args, err)
		}
		r := s.call(t, c.tool, c.args)
		if r.IsError {
			t.Errorf("%s(%s) (valid per its inputSchema) = %q", c.tool, c.args, r.text())
		}
	}
}

// TestWaitToolsRefuseUndeclaredFilters: wait_for_otp and wait_for_link do
// not declare sender or subject_contains (DESIGN.md: wait_for_otp takes
// inbox_id, timeout, min_confidence, since), but the three wait tools share
// one argument struct, so these filters are bound and silently ignored: the
// agent asked for the code from one sender and gets another's. An argument
// the tool does not have must be INVALID_ARGUMENT, as bindArgs promises.
func TestWaitToolsRefuseUndeclaredFilters(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	s := startRawStdio(t, env.tools)
	r := s.call(t, "create_inbox", `{"label":"raw"}`)
	var inbox inboxtools.CreateInboxResult
	if err := json.Unmarshal(r.StructuredContent, &inbox); err != nil || r.IsError {
		t.Fatalf("create_inbox = %s %v", r.StructuredContent, err)
	}
	smtpSend(t, env.sandbox.SMTPAddr(), inbox.Address, "Your sign-in code",
		"Your code is 482913. Or click https://app.example.test/verify?token=abc123")
	calls := []struct{ tool, args string }{
		{"wait_for_otp", `{"inbox_id":%q,"since":"2000-01-01T00:00:00Z","timeout":5,"sender":"bank@other.example"}`},
		{"wait_for_otp", `{"inbox_id":%q,"since":"2000-01-01T00:00:00Z","timeout":5,"subject_contains":"password reset"}`},
		{"wait_for_link", `{"inbox_id":%q,"since":"2000-01-01T00:00:00Z","timeout":5,"sender":"bank@other.example"}`},
		{"wait_for_email", `{"inbox_id":%q,"since":"2000-01-01T00:00:00Z","timeout":5,"min_confidence":0.99}`},
	}
	for _, c := range calls {
		args := fmt.Sprintf(c.args, inbox.InboxID)
		r := s.call(t, c.tool, args)
		if !r.IsError || !strings.HasPrefix(r.text(), "INVALID_ARGUMENT") {
			t.Errorf("%s(%s) = isError %v %q; want INVALID_ARGUMENT: the argument is not in %s's inputSchema",
				c.tool, args, r.IsError, truncateZZ(r.text(), 120), c.tool)
		}
	}
}

func truncateZZ(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestCaseFoldedArgumentIsUnknown: encoding/json matches object keys to
// fields case-insensitively, so "MARK_READ" (not an argument of read_email:
// property names are case-sensitive) binds to mark_read and marks the message
// read, while the audit decision reads args["mark_read"] exactly and writes no
// audit line: a mailbox change with no audit record (README, "every call of a
// tool that changes something logs one line msg=audit").
func TestCaseFoldedArgumentIsUnknown(t *testing.T) {
	var logs syncBuffer
	env := newTestEnv(t, tools.Options{})
	ts, err := tools.New(tools.Deps{Mail: env.mail}, tools.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	env.sendMail(t, "agent@sandbox.localhost", "case folded")
	s := startRawStdio(t, ts)
	r := s.call(t, "read_email", `{"uid":1,"MARK_READ":true}`)
	var read tools.ReadResult
	_ = json.Unmarshal(r.StructuredContent, &read)
	audits := 0
	if strings.TrimSpace(logs.String()) != "" {
		audits = len(auditLines(t, logs.String()))
	}
	if !r.IsError || !strings.HasPrefix(r.text(), "INVALID_ARGUMENT") {
		t.Errorf(`read_email({"uid":1,"MARK_READ":true}) = isError %v, flags %v, audit lines %d; want INVALID_ARGUMENT: unknown argument "MARK_READ"`,
			r.IsError, read.Flags, audits)
	}
	// Control: the same change spelled mark_read is audited.
	s.call(t, "read_email", `{"uid":1,"mark_read":true}`)
	if n := len(auditLines(t, logs.String())); n != audits+1 {
		t.Errorf("control: mark_read=true wrote %d audit lines, want 1", n-audits)
	}
}

// TestStringListQuotedComma: send_email's to takes one string as the seed
// did ("a@x.com"; commas separate several). A display name in quotes may
// hold a comma (RFC 5322 quoted-string): "\"Doe, John\" <john@…>" is one
// address, but StringList splits it at the comma into two broken ones.
func TestStringListQuotedComma(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	s := startRawStdio(t, env.tools)
	r := s.call(t, "send_email", `{"to":"\"Doe, John\" <john@example.test>","subject":"quoted comma","body":"b"}`)
	var sent tools.SendResult
	_ = json.Unmarshal(r.StructuredContent, &sent)
	if r.IsError || len(sent.Accepted) != 1 || !strings.Contains(sent.Accepted[0], "john@example.test") {
		t.Errorf(`send_email(to="\"Doe, John\" <john@example.test>") = isError %v %q, accepted %v; want one recipient john@example.test`,
			r.IsError, truncateZZ(r.text(), 200), sent.Accepted)
	}
}

// TestListTypeErrorNamesArgument: bindArgs promises "wrong types are
// INVALID_ARGUMENT errors that name the argument, so the model can correct
// its call"; a wrong type for cc (one of four list arguments) says only
// "expected an array of strings".
func TestListTypeErrorNamesArgument(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	s := startRawStdio(t, env.tools)
	r := s.call(t, "send_email", `{"to":["a@example.test"],"cc":{"x":1},"subject":"s","body":"b"}`)
	if !r.IsError || !strings.Contains(r.text(), `cc`) {
		t.Errorf(`send_email with cc={"x":1} = %q, want INVALID_ARGUMENT naming "cc"`, r.text())
	}
}
