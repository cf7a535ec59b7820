package tools_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// recorder is a go-smtp backend that accepts everything and keeps what
// reached it: every RCPT TO (accepted or not yet followed by DATA) and
// every message with its envelope.
type recorder struct {
	mu    sync.Mutex
	rcpts []string   // every RCPT TO, in order
	mails []recorded // completed transactions
}

type recorded struct {
	rcpts []string
	data  string
}

func (r *recorder) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &recorderSession{r: r}, nil
}

// take returns and forgets what was recorded.
func (r *recorder) take() (rcpts []string, mails []recorded) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rcpts, mails = r.rcpts, r.mails
	r.rcpts, r.mails = nil, nil
	return rcpts, mails
}

type recorderSession struct {
	r     *recorder
	rcpts []string
}

func (s *recorderSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *recorderSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.r.mu.Lock()
	s.r.rcpts = append(s.r.rcpts, to)
	s.r.mu.Unlock()
	s.rcpts = append(s.rcpts, to)
	return nil
}
func (s *recorderSession) Data(rd io.Reader) error {
	b, err := io.ReadAll(rd)
	s.r.mu.Lock()
	s.r.mails = append(s.r.mails, recorded{rcpts: s.rcpts, data: string(b)})
	s.r.mu.Unlock()
	return err
}
func (s *recorderSession) Reset()        { s.rcpts = nil }
func (s *recorderSession) Logout() error { return nil }

// recordingClient serves the tools over env's sandbox IMAP (the originals
// are delivered there) with SMTP going to a recorder.
func recordingClient(t *testing.T, env *testEnv, send tools.SendOptions) (*mailEnv, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := gosmtp.NewServer(rec)
	srv.EnableSMTPUTF8 = true
	host, port := serveSMTP(t, srv)
	send.From, send.SaveSent = testFrom, "false"
	ws, err := attachments.Open(attachments.Options{BaseDir: env.base, MaxFileSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	ts, err := tools.New(tools.Deps{Mail: env.mail, Sent: env.mail, Send: send, Files: ws,
		Sender: smtp.New(smtp.Options{Host: host, Port: port, Security: smtp.SecurityPlain})}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &mailEnv{client: inProcessClient(t, ts), base: env.base}, rec
}

// addrList is n addresses user0@domain ... folded one per line, as a
// mailer writes a long list.
func addrList(n int, local, domain string) string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprintf("%s%d@%s", local, i, domain)
	}
	return strings.Join(l, ",\r\n ")
}

// deliverOriginal delivers a message with the given address header lines
// into the sandbox INBOX and returns its UID.
func deliverOriginal(t *testing.T, env *testEnv, e *mailEnv, subject, headers string) uint32 {
	t.Helper()
	raw := headers + "Subject: " + subject + "\r\nMessage-ID: <" + strings.ReplaceAll(subject, " ", ".") + "@example.test>\r\n" +
		"Date: Tue, 19 Mar 2024 10:30:00 +0000\r\n\r\nHello\r\n"
	if err := env.sandbox.Deliver(context.Background(), []byte(raw), []string{testFrom}); err != nil {
		t.Fatal(err)
	}
	return findOne(t, e, "INBOX", subject).UID
}

// errorOf is the structured error of a failed call.
func errorOf(t *testing.T, res *mcp.CallToolResult) (code, msg string, details map[string]any) {
	t.Helper()
	var body struct {
		Error map[string]any `json:"error"`
	}
	structured(t, res, &body)
	code, _ = body.Error["code"].(string)
	msg, _ = body.Error["message"].(string)
	return code, msg, body.Error
}

// TestReplyToManyRecipients is issue 14 item 5: an untrusted message
// cannot choose how many people a reply goes to. A Reply-To of 300
// addresses made a reply to 300 (601 with reply_all); now such a reply is
// refused whole, naming the count, and nothing reaches SMTP.
func TestReplyToManyRecipients(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e, rec := recordingClient(t, env, tools.SendOptions{})
	uid := deliverOriginal(t, env, e, "many-300", "From: Mallory <mallory@evil.test>\r\n"+
		"Reply-To: "+addrList(300, "r", "victims.test")+"\r\n"+
		"To: "+testFrom+",\r\n "+addrList(300, "t", "victims.test")+"\r\nCc: c@victims.test\r\n")
	for _, tc := range []struct {
		all  bool
		want string
		n    int
	}{{false, "300", 300}, {true, "601", 601}} {
		res := callTool(t, e.client, "reply_email", map[string]any{"uid": uid, "body": "hi", "reply_all": tc.all})
		code, msg, details := errorOf(t, res)
		rcpts, _ := rec.take()
		if !res.IsError || code != string(mcpkit.CodeInvalidArgument) || !strings.Contains(msg, tc.want+" recipients") || !strings.Contains(msg, "nothing was sent") {
			t.Errorf("reply_all=%v to a 300-address Reply-To = %q (isError %v), want INVALID_ARGUMENT naming %s recipients; the reply reached %d recipients",
				tc.all, res.Content[0].(mcp.TextContent).Text, res.IsError, tc.want, len(rcpts))
		}
		if details["recipients"] != float64(tc.n) || details["max_recipients"] != float64(100) {
			t.Errorf("reply_all=%v details = %v, want recipients %s and max_recipients 100", tc.all, details, tc.want)
		}
		if len(rcpts) != 0 {
			t.Errorf("reply_all=%v: %d RCPT TO reached the SMTP server, want 0", tc.all, len(rcpts))
		}
	}
}

// replyCase is one hostile original: its address headers, whether to reply
// to all, and what must happen: the reply's To and Cc (bare addresses, as
// the envelope has them) or an error code with a text it must contain.
type replyCase struct {
	name     string
	headers  string
	all      bool
	allowed  bool // through the server with SEND_ALLOWED_RECIPIENTS=example.test,xn--bcher-kva.example
	to, cc   []string
	code     mcpkit.Code
	contains string
}

var hostileReplies = []replyCase{
	{name: "reply-to 300", headers: "From: a@example.test\r\nReply-To: " + addrList(300, "r", "example.test") + "\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "300 recipients"},
	{name: "from 300", headers: "From: " + addrList(300, "f", "example.test") + "\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "300 recipients"},
	{name: "reply-to 101", headers: "From: a@example.test\r\nReply-To: " + addrList(101, "r", "example.test") + "\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "101 recipients"},
	{name: "reply_all 60+41", all: true, headers: "From: a@example.test\r\nTo: " + addrList(60, "t", "example.test") + "\r\nCc: " + addrList(40, "c", "example.test") + "\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "101 recipients"},
	{name: "reply-to 100 goes", headers: "From: a@example.test\r\nReply-To: " + addrList(100, "r", "example.test") + "\r\n",
		to: strings.Split(strings.ReplaceAll(addrList(100, "r", "example.test"), ",\r\n ", ","), ",")},
	{name: "300 copies of one address", headers: "From: a@example.test\r\nReply-To: " + strings.Repeat("Bob <BOB@Example.TEST>, bob@example.test, \"bob\"@EXAMPLE.test,\r\n ", 100) + "<bob@example.test>\r\n",
		to: []string{"BOB@Example.TEST"}},
	{name: "duplicates across fields", all: true, headers: "From: a@example.test\r\nReply-To: Bob <bob@example.test>\r\nTo: BOB@EXAMPLE.TEST, \"Bob B\" <Bob@Example.Test>, c@example.test\r\nCc: C@Example.Test, <bob@example.test>, d@example.test\r\n",
		to: []string{"bob@example.test", "c@example.test"}, cc: []string{"d@example.test"}},
	{name: "idn duplicates", all: true, headers: "From: a@bücher.example\r\nTo: a@xn--bcher-kva.example, A@XN--BCHER-KVA.EXAMPLE, b@Bücher.example, b@xn--bcher-kva.example\r\n",
		to: []string{"a@bücher.example", "b@Bücher.example"}},
	{name: "empty group", all: true, headers: "From: a@example.test\r\nTo: undisclosed-recipients:;\r\nCc: Empty:;\r\n",
		to: []string{"a@example.test"}},
	{name: "group members", all: true, headers: "From: a@example.test\r\nTo: " + testFrom + ", team: b@example.test, c@example.test;\r\nCc: others: d@example.test;, e@example.test\r\n",
		to: []string{"a@example.test", "b@example.test", "c@example.test"}, cc: []string{"d@example.test", "e@example.test"}},
	{name: "group of 150", all: true, headers: "From: a@example.test\r\nTo: list: " + addrList(150, "g", "example.test") + ";\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "151 recipients"},
	{name: "quoted name with comma", headers: "From: \"Doe, Jane\" <jane@example.test>\r\n",
		to: []string{"jane@example.test"}},
	{name: "unquoted name with comma", headers: "From: Doe, Jane <jane@example.test>\r\n",
		to: []string{"jane@example.test"}},
	{name: "comment with comma", headers: "From: jane@example.test (Doe, Jane)\r\n",
		to: []string{"jane@example.test"}},
	{name: "encoded CRLF Bcc in name", headers: "From: =?utf-8?q?Eve=0D=0ABcc=3A_victim=40evil.test?= <eve@example.test>\r\n",
		to: []string{"eve@example.test"}},
	{name: "bare CR in reply-to", headers: "From: a@example.test\r\nReply-To: r@example.test\rBcc: victim@evil.test\r\n",
		to: []string{"r@example.test"}},
	{name: "bare LF in reply-to", headers: "From: a@example.test\r\nReply-To: r@example.test\nBcc: victim@evil.test\r\n",
		to: []string{"r@example.test"}},
	{name: "NUL in address", headers: "From: a@example.test\r\nReply-To: r\x00@example.test\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "nothing was sent"},
	{name: "NUL after address", headers: "From: a@example.test\r\nReply-To: <r@example.test\x00>, s@example.test\r\n",
		to: []string{"r@example.test", "s@example.test"}},
	{name: "own address in many forms", all: true, headers: "From: Alice <alice@example.test>\r\n" +
		"To: AGENT@SANDBOX.LOCALHOST, \"agent\"@sandbox.localhost, Agent <agent@sandbox.localhost>, <Agent@Sandbox.Localhost>\r\n" +
		"Cc: agent+signup@sandbox.localhost, agent@sandbox.localhost., Agent+X@SANDBOX.localhost, bob@example.test\r\n",
		to: []string{"alice@example.test"}, cc: []string{"bob@example.test"}},
	{name: "own address as reply-to", all: true, headers: "From: alice@example.test\r\nReply-To: Agent <AGENT@sandbox.localhost>\r\nTo: agent@sandbox.localhost, bob@example.test\r\n",
		to: []string{"bob@example.test"}},
	{name: "note to self", headers: "From: Agent <AGENT@sandbox.localhost>\r\nTo: agent@sandbox.localhost\r\n",
		to: []string{"AGENT@sandbox.localhost"}},
	{name: "reply-to outside allow-list", allowed: true, headers: "From: a@example.test\r\nReply-To: collect@evil.test\r\n",
		code: mcpkit.CodeRecipientNotAllowed, contains: "collect@evil.test"},
	{name: "reply_all cc outside allow-list", allowed: true, all: true, headers: "From: a@example.test\r\nTo: " + testFrom + "\r\nCc: b@example.test, x@example.test.evil.test\r\n",
		code: mcpkit.CodeRecipientNotAllowed, contains: "x@example.test.evil.test"},
	{name: "reply-to inside allow-list", allowed: true, headers: "From: a@evil.test\r\nReply-To: QA@Example.Test\r\n",
		to: []string{"QA@Example.Test"}},
	{name: "allowed punycode domain", allowed: true, headers: "From: a@evil.test\r\nReply-To: qa@XN--BCHER-KVA.example\r\n",
		to: []string{"qa@XN--BCHER-KVA.example"}},
	{name: "unicode form of an allowed punycode domain", allowed: true, headers: "From: a@evil.test\r\nReply-To: qa@Bücher.example\r\n",
		to: []string{"qa@Bücher.example"}},
	{name: "look-alike of an allowed domain", allowed: true, headers: "From: a@example.test\r\nReply-To: qa@exаmple.test\r\n", // Cyrillic а
		code: mcpkit.CodeRecipientNotAllowed, contains: "qa@exаmple.test"},
	{name: "300 outside allow-list", allowed: true, headers: "From: a@example.test\r\nReply-To: " + addrList(300, "r", "evil.test") + "\r\n",
		code: mcpkit.CodeInvalidArgument, contains: "300 recipients"},
}

// TestReplyHostileHeaders runs each hostile original through reply_email
// against a recording SMTP server: the envelope is exactly the reply's To
// and Cc, no header is smuggled in, and a refused reply sends nothing.
func TestReplyHostileHeaders(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	open, openRec := recordingClient(t, env, tools.SendOptions{})
	guarded, guardedRec := recordingClient(t, env, tools.SendOptions{AllowedRecipients: []string{"example.test", "xn--bcher-kva.example"}})
	for i, tc := range hostileReplies {
		t.Run(tc.name, func(t *testing.T) {
			e, rec := open, openRec
			if tc.allowed {
				e, rec = guarded, guardedRec
			}
			uid := deliverOriginal(t, env, e, fmt.Sprintf("hostile %d", i), tc.headers)
			res := callTool(t, e.client, "reply_email", map[string]any{"uid": uid, "body": "ok", "quote": false, "reply_all": tc.all})
			rcpts, mails := rec.take()
			text := res.Content[0].(mcp.TextContent).Text
			if tc.code != "" {
				if !res.IsError || !strings.HasPrefix(text, string(tc.code)+": ") || !strings.Contains(text, tc.contains) {
					t.Errorf("reply = %q, want %s containing %q", text, tc.code, tc.contains)
				}
				if len(rcpts) != 0 {
					t.Errorf("a refused reply reached SMTP with %d recipients", len(rcpts))
				}
				return
			}
			if res.IsError {
				t.Fatalf("reply = %q, want to %v cc %v", text, tc.to, tc.cc)
			}
			var r tools.ReplyResult
			structured(t, res, &r)
			if got := bare(t, r.To); !slices.Equal(got, tc.to) {
				t.Errorf("to = %v, want %v", got, tc.to)
			}
			if got := bare(t, r.Cc); !slices.Equal(got, tc.cc) && len(got)+len(tc.cc) > 0 {
				t.Errorf("cc = %v, want %v", got, tc.cc)
			}
			want := append(slices.Clone(tc.to), tc.cc...)
			if len(mails) != 1 || !slices.Equal(mails[0].rcpts, want) {
				t.Fatalf("SMTP got %d mails, RCPT TO %v; want one to %v", len(mails), rcpts, want)
			}
			head := strings.ToLower(mails[0].data[:strings.Index(mails[0].data, "\r\n\r\n")+2])
			// A display name may read "Bcc: ..." (the original's text,
			// quoted); no header line may.
			if strings.Contains(head, "\nbcc:") || strings.Contains(head, "\rbcc:") || strings.Count(head, "\r\n") != strings.Count(head, "\n") {
				t.Errorf("a header was smuggled into the reply:\n%s", head)
			}
		})
	}
}

// bare is the addresses of formatted "Name <a@x>" strings.
func bare(t *testing.T, l []string) []string {
	t.Helper()
	out := []string{}
	for _, s := range l {
		if i := strings.LastIndexByte(s, '<'); i >= 0 && strings.HasSuffix(s, ">") {
			s = s[i+1 : len(s)-1]
		}
		out = append(out, s)
	}
	return out
}

// TestSendCountsParsedRecipients: the cap of 100 recipients counts
// addresses, not argument strings. One string may hold a comma-separated
// list or a group; 120 addresses in two strings were sent.
func TestSendCountsParsedRecipients(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e, rec := recordingClient(t, env, tools.SendOptions{})
	short := func(n int, p string) string {
		l := make([]string, n)
		for i := range l {
			l[i] = fmt.Sprintf("%s%d@x.test", p, i)
		}
		return strings.Join(l, ",")
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"two lists in to", map[string]any{"to": []any{short(60, "a"), short(60, "b")}}, "120 recipients"},
		{"group in cc", map[string]any{"to": "a@x.test", "cc": []any{"g: " + short(60, "c") + ";", short(50, "d")}}, "111 recipients"},
		{"bcc list", map[string]any{"to": "a@x.test", "bcc": []any{short(70, "e"), short(30, "f")}}, "101 recipients"},
	} {
		for _, tool := range []string{"send_email", "send_email_with_attachments"} {
			args := map[string]any{"subject": "s", "body": "b"}
			for k, v := range tc.args {
				args[k] = v
			}
			if tool == "send_email_with_attachments" {
				args["attachment_paths"] = []any{"uploads/none.txt"}
			}
			text := e.wantError(t, tool, args, mcpkit.CodeInvalidArgument)
			if !strings.Contains(text, tc.want) {
				t.Errorf("%s %s = %q, want it to name %s", tool, tc.name, text, tc.want)
			}
			if rcpts, _ := rec.take(); len(rcpts) != 0 {
				t.Errorf("%s %s: %d RCPT TO reached SMTP, want 0", tool, tc.name, len(rcpts))
			}
		}
	}
	// reply_to has its own cap of 10, in addresses too.
	e.wantError(t, "send_email", map[string]any{"to": "a@x.test", "subject": "s", "body": "b", "reply_to": []any{short(11, "r")}}, mcpkit.CodeInvalidArgument)
	if rcpts, _ := rec.take(); len(rcpts) != 0 {
		t.Errorf("reply_to of 11: %d RCPT TO reached SMTP, want 0", len(rcpts))
	}
}

// TestReplyCountsAgainstSendCap: SEND_MAX_PER_HOUR covers reply_email as
// it does send_email, and a reply refused for its recipients costs
// nothing: with a cap of 1, the refused reply to 300 leaves room for one
// reply, after which both tools are RATE_LIMITED.
func TestReplyCountsAgainstSendCap(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e, rec := recordingClient(t, env, tools.SendOptions{MaxPerHour: 1})
	many := deliverOriginal(t, env, e, "cap many", "From: a@example.test\r\nReply-To: "+addrList(300, "r", "example.test")+"\r\n")
	one := deliverOriginal(t, env, e, "cap one", "From: a@example.test\r\n")
	e.wantError(t, "reply_email", map[string]any{"uid": many, "body": "x"}, mcpkit.CodeInvalidArgument)
	var r tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": one, "body": "x"}, &r)
	if !r.Success || len(r.Accepted) != 1 {
		t.Fatalf("the first reply after a refused one = %+v, want sent to 1", r)
	}
	e.wantError(t, "send_email", map[string]any{"to": "b@example.test", "subject": "s", "body": "b"}, mcpkit.CodeRateLimited)
	e.wantError(t, "reply_email", map[string]any{"uid": one, "body": "again"}, mcpkit.CodeRateLimited)
	if rcpts, mails := rec.take(); len(rcpts) != 1 || len(mails) != 1 {
		t.Errorf("SMTP got %d recipients in %d mails, want the one reply", len(rcpts), len(mails))
	}
}
