package tools_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// sandboxClient is an in-process MCP client on the sandbox env, whose SMTP
// delivers every mail into its own INBOX: a send can be read back.
func sandboxClient(t testing.TB, env *testEnv) *mailEnv {
	t.Helper()
	c := inProcessClient(t, env.tools)
	return &mailEnv{client: c, base: env.base}
}

// findOne searches a folder for a subject and wants exactly one message.
func findOne(t testing.TB, e *mailEnv, folder, subject string) tools.MessageSummary {
	t.Helper()
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder, "subject": subject}, &r)
	if r.Total != 1 {
		t.Fatalf("search %s for %q: %d messages, want 1", folder, subject, r.Total)
	}
	return r.Messages[0]
}

// rawMessage fetches a message's bytes as stored.
func rawMessage(t testing.TB, env *testEnv, folder string, uid uint32) string {
	t.Helper()
	m, err := env.mail.FetchMessage(context.Background(), folder, uid, 0)
	if err != nil {
		t.Fatal(err)
	}
	return string(m.Raw)
}

func TestSendEmailRoundTrip(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	var r tools.SendResult
	e.call(t, "send_email", map[string]any{
		"to": []any{"Bob Example <bob@example.test>", "carol@example.test"}, "cc": "dave@example.test", "bcc": []any{"secret@example.test"},
		"subject": "Grüße – round trip", "body": "Hello Bob,\nsee you.", "body_html": "<p>Hello <b>Bob</b></p>", "reply_to": "replies@example.test",
	}, &r)
	if !r.Success || r.MessageID == "" || len(r.Accepted) != 4 || len(r.Rejected) != 0 || r.SentCopy != "saved" {
		t.Fatalf("send = %+v", r)
	}
	got := findOne(t, e, "INBOX", "round trip")
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": got.UID, "format": "both"}, &read)
	if read.Subject != "Grüße – round trip" || read.MessageID != r.MessageID || !strings.Contains(read.BodyText, "see you") ||
		read.BodyHTML == nil || read.From != "Test Agent <"+testFrom+">" || len(read.To) != 2 || len(read.Cc) != 1 || len(read.ReplyTo) != 1 {
		t.Errorf("read back = %+v", read)
	}
	raw := rawMessage(t, env, "INBOX", got.UID)
	if strings.Contains(strings.ToLower(raw[:strings.Index(raw, "\r\n\r\n")]), "\r\nbcc:") || !strings.Contains(raw, "secret@example.test") {
		// The sandbox lists envelope recipients in Envelope-To: the Bcc
		// reached the envelope but no Bcc header was written.
		t.Errorf("Bcc handling wrong in:\n%.600s", raw)
	}
	sent := findOne(t, e, "Sent", "round trip")
	if sent.Unread {
		t.Error("the sent copy is not \\Seen")
	}
	sentRaw := rawMessage(t, env, "Sent", sent.UID)
	if !strings.Contains(sentRaw, "Message-I") || !strings.Contains(sentRaw, r.MessageID) {
		t.Errorf("sent copy lacks the Message-ID: %.300s", sentRaw)
	}
}

func TestSendHeaderInjection(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	evil := []string{"\r", "\n", "\r\n", "\x00", "\r\nBcc: victim@example.test", "\nX-Injected: 1"}
	for _, field := range []string{"subject", "from_name", "to", "cc", "bcc", "reply_to"} {
		for _, bad := range evil {
			args := map[string]any{"to": "bob@example.test", "subject": "ok", "body": "b"}
			switch field {
			case "subject", "from_name":
				args[field] = "Hello" + bad + "world"
			default:
				args[field] = []any{"x@example.test" + bad}
			}
			e.wantError(t, "send_email", args, mcpkit.CodeInvalidArgument)
		}
	}
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{}, &r)
	if r.Total != 0 {
		t.Errorf("%d messages were sent by refused calls", r.Total)
	}
	e.wantError(t, "send_email", map[string]any{"to": "not an address", "subject": "s", "body": "b"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "send_email", map[string]any{"to": []any{}, "subject": "s", "body": "b"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "send_email", map[string]any{"to": "a@example.test", "body": "b"}, mcpkit.CodeInvalidArgument)
}

func TestReplyEmailThreads(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	orig := "From: Alice <alice@example.test>\r\nTo: " + testFrom + ", Zed <zed@example.test>\r\nCc: AGENT@sandbox.localhost, carol@example.test\r\n" +
		"Reply-To: Alice Replies <alice-replies@example.test>\r\nSubject: RE: re: Lunch plans\r\nMessage-ID: <orig-3@example.test>\r\n" +
		"References: <orig-1@example.test> <orig-2@example.test>\r\nDate: Tue, 19 Mar 2024 10:30:00 +0000\r\n\r\nShall we meet at noon?\r\n"
	if err := env.sandbox.Deliver(context.Background(), []byte(orig), []string{testFrom}); err != nil {
		t.Fatal(err)
	}
	o := findOne(t, e, "INBOX", "Lunch plans")
	var r tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": o.UID, "body": "Noon works.", "reply_all": true}, &r)
	// Reply-To wins over From; reply-all adds the original To and Cc
	// without our own address (in any case).
	if r.Subject != "Re: Lunch plans" || !slices.Equal(r.To, []string{"Alice Replies <alice-replies@example.test>", "Zed <zed@example.test>"}) ||
		!slices.Equal(r.Cc, []string{"carol@example.test"}) {
		t.Errorf("reply = subject %q to %v cc %v", r.Subject, r.To, r.Cc)
	}
	var found tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "Lunch plans"}, &found)
	if found.Total != 2 || found.Messages[0].UID == o.UID {
		t.Fatalf("reply not delivered: %+v", found.Messages)
	}
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": found.Messages[0].UID}, &read)
	if read.InReplyTo != "orig-3@example.test" || !slices.Equal(read.References, []string{"orig-1@example.test", "orig-2@example.test", "orig-3@example.test"}) {
		t.Errorf("threading = in_reply_to %q references %v", read.InReplyTo, read.References)
	}
	if !strings.Contains(read.BodyText, "> Shall we meet at noon?") || !strings.Contains(read.BodyText, "wrote:") {
		t.Errorf("quote missing: %q", read.BodyText)
	}
	var after tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": o.UID}, &after)
	if !slices.Contains(after.Flags, `\Answered`) {
		t.Errorf(`original flags = %v, want \Answered`, after.Flags)
	}
	e.wantError(t, "reply_email", map[string]any{"uid": 9999, "body": "x"}, mcpkit.CodeMessageNotFound)
}

func TestSendWithAttachments(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	uploads := filepath.Join(env.base, "attachments", "email", "uploads")
	if err := os.WriteFile(filepath.Join(uploads, "report.pdf"), []byte("%PDF-1.4 fake report"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.base, ".env"), []byte("SECRET=1"), 0o600); err != nil {
		t.Fatal(err)
	}
	var r tools.SendAttachmentsResult
	e.call(t, "send_email_with_attachments", map[string]any{"to": "bob@example.test", "subject": "with file", "body": "attached",
		"attachment_paths": []any{"attachments/email/uploads/report.pdf"}}, &r)
	if !r.Success || len(r.Attachments) != 1 || r.Attachments[0].Filename != "report.pdf" || r.Attachments[0].SizeBytes != 20 {
		t.Fatalf("send = %+v", r)
	}
	got := findOne(t, e, "INBOX", "with file")
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": got.UID}, &read)
	if len(read.Attachment) != 1 || read.Attachment[0].Filename != "report.pdf" || read.Attachment[0].ContentType != "application/pdf" {
		t.Errorf("read back attachments = %+v", read.Attachment)
	}
	for _, p := range []string{"../.env", ".env", "attachments/email/../../.env", "/etc/passwd", "uploads/../../../.env", filepath.Join(env.base, ".env")} {
		e.wantError(t, "send_email_with_attachments", map[string]any{"to": "bob@example.test", "subject": "leak", "body": "x", "attachment_paths": []any{p}}, mcpkit.CodePathOutsideWorkspace)
	}
	e.wantError(t, "send_email_with_attachments", map[string]any{"to": "bob@example.test", "subject": "leak", "body": "x", "attachment_paths": []any{"uploads/missing.pdf"}}, mcpkit.CodeInvalidArgument)
	var leak tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "leak"}, &leak)
	if leak.Total != 0 {
		t.Errorf("refused sends delivered %d messages", leak.Total)
	}
}

// rejectAll is a submission server that refuses every recipient with 550.
type rejectAll struct{}

func (rejectAll) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return rejectSession{}, nil }

type rejectSession struct{}

func (rejectSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (rejectSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	return &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "no such user here (host internal.example)"}
}
func (rejectSession) Data(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
func (rejectSession) Reset()                 {}
func (rejectSession) Logout() error          { return nil }

// TestSendRejected: every recipient refused is SEND_REJECTED listing them,
// with no server text; nothing is kept in Sent.
func TestSendRejected(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	host, port := serveSMTP(t, gosmtp.NewServer(rejectAll{}))
	ts, err := tools.New(tools.Deps{Mail: env.mail, Sent: env.mail, Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain}),
		Send: tools.SendOptions{From: testFrom, SaveSent: "auto"}}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	e := &mailEnv{client: c}
	res := callTool(t, c, "send_email", map[string]any{"to": []any{"a@example.test", "b@example.test"}, "subject": "s", "body": "b"})
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "SEND_REJECTED: ") || strings.Contains(text, "internal.example") {
		t.Fatalf("send to refused recipients = %q", text)
	}
	var body struct {
		Error struct {
			Rejected []string `json:"rejected"`
		} `json:"error"`
	}
	structured(t, res, &body)
	if !slices.Equal(body.Error.Rejected, []string{"a@example.test", "b@example.test"}) {
		t.Errorf("rejected = %v", body.Error.Rejected)
	}
	var sent tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": "Sent"}, &sent)
	if sent.Total != 0 {
		t.Errorf("a refused message was copied to Sent")
	}
}

// RFC 5322 §3.6.4: when the parent has no References but an In-Reply-To
// with a single id, the reply's References is that id followed by the
// parent's Message-ID. DESIGN.md: "Replies carry the full References chain".
func TestReplyThreadsFromInReplyTo(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	orig := "From: Alice <alice@example.test>\r\nTo: " + testFrom + "\r\nSubject: thread-irt\r\n" +
		"Message-ID: <parent@example.test>\r\nIn-Reply-To: <grandparent@example.test>\r\n" +
		"Date: Tue, 19 Mar 2024 10:30:00 +0000\r\n\r\nHello\r\n"
	if err := env.sandbox.Deliver(context.Background(), []byte(orig), []string{testFrom}); err != nil {
		t.Fatal(err)
	}
	o := findOne(t, e, "INBOX", "thread-irt")
	var r tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": o.UID, "body": "ok", "quote": false}, &r)
	var found tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "Re: thread-irt"}, &found)
	if found.Total != 1 {
		t.Fatalf("reply not delivered: %+v", found.Messages)
	}
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": found.Messages[0].UID}, &read)
	want := []string{"grandparent@example.test", "parent@example.test"}
	if read.InReplyTo != "parent@example.test" || !slices.Equal(read.References, want) {
		t.Errorf("reply threading: in_reply_to %q references %v, want references %v", read.InReplyTo, read.References, want)
	}
}

// A message whose Message-ID is not dot-atom@dot-atom (here: no "@", as
// some bulk senders write it) is answered without threading headers; the
// raw id in In-Reply-To made reply_email fail with INVALID_ARGUMENT.
func TestReplyToOddMessageID(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	orig := "From: Alice <alice@example.test>\r\nTo: " + testFrom + "\r\nSubject: odd-id\r\n" +
		"Message-ID: <20240319103000.4711.mailer>\r\nDate: Tue, 19 Mar 2024 10:30:00 +0000\r\n\r\nHello\r\n"
	if err := env.sandbox.Deliver(context.Background(), []byte(orig), []string{testFrom}); err != nil {
		t.Fatal(err)
	}
	o := findOne(t, e, "INBOX", "odd-id")
	res := callTool(t, e.client, "reply_email", map[string]any{"uid": o.UID, "body": "ok", "quote": false})
	if res.IsError {
		t.Fatalf("reply_email to a message with Message-ID <20240319103000.4711.mailer> failed: %s", res.Content[0].(mcp.TextContent).Text)
	}
}

// TestSendNonASCIIWithoutSMTPUTF8: a non-ASCII recipient to a server
// without SMTPUTF8 is refused before the server is asked, and the answer
// says why (the Go SDK suite on Dovecot got "the mail server refused the
// message", which named no cause).
func TestSendNonASCIIWithoutSMTPUTF8(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	host, port := serveSMTP(t, gosmtp.NewServer(sinkBackend{})) // go-smtp offers no SMTPUTF8 unless asked
	ts, err := tools.New(tools.Deps{Mail: env.mail, Sent: env.mail, Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain}),
		Send: tools.SendOptions{From: testFrom, SaveSent: "false"}}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	res := callTool(t, c, "send_email", map[string]any{"to": "Ünïcode@example.test", "subject": "s", "body": "b"})
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "SEND_REJECTED: ") || !strings.Contains(text, "SMTPUTF8") || !strings.Contains(text, "ASCII") {
		t.Errorf("send to a non-ASCII address without SMTPUTF8 = %q, want SEND_REJECTED naming SMTPUTF8", text)
	}
}

// serveSMTP serves srv on a loopback port until the test ends (Domain
// localhost, AUTH allowed without TLS) and returns its host and port.
func serveSMTP(t testing.TB, srv *gosmtp.Server) (string, int) {
	t.Helper()
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return splitAddr(t, ln.Addr().String())
}

// sinkBackend accepts every mail (go-smtp backend).
type sinkBackend struct{}

func (sinkBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return sinkBackendSession{}, nil }

type sinkBackendSession struct{}

func (sinkBackendSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (sinkBackendSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (sinkBackendSession) Data(r io.Reader) error                 { _, err := io.Copy(io.Discard, r); return err }
func (sinkBackendSession) Reset()                                 {}
func (sinkBackendSession) Logout() error                          { return nil }

// TestSendCapRefundsWhatWasNotSent: SEND_MAX_PER_HOUR counts only sends
// that may have delivered. A message refused by the client's own SIZE
// check, before MAIL FROM, delivered nothing: with a cap of 1 the next send
// still goes out (it was RATE_LIMITED).
func TestSendCapRefundsWhatWasNotSent(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	srv := gosmtp.NewServer(sinkBackend{})
	srv.MaxMessageBytes = 4096
	host, port := serveSMTP(t, srv)
	ts, err := tools.New(tools.Deps{Mail: env.mail, Sent: env.mail, Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain}),
		Send: tools.SendOptions{From: testFrom, SaveSent: "false", MaxPerHour: 1}}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &mailEnv{client: inProcessClient(t, ts)}
	e.wantError(t, "send_email", map[string]any{"to": "a@example.test", "subject": "big", "body": strings.Repeat("x", 10000)}, mcpkit.CodeAttachmentTooLarge)
	res := callTool(t, e.client, "send_email", map[string]any{"to": "a@example.test", "subject": "small", "body": "b"})
	if res.IsError {
		t.Fatalf("first real send after a too-large attempt (nothing sent) = %s", res.Content[0].(mcp.TextContent).Text)
	}
}
