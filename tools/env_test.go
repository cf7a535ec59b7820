package tools_test

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

const testKey = "test-key-0123456789"

// testEnv is a sandbox mail server, the IMAP pool on it, the tools and their
// HTTP endpoints on a loopback httptest server.
type testEnv struct {
	sandbox *devmail.Server
	mail    *imap.Client
	tools   *tools.Server
	http    *httptest.Server
	base    string // EMAIL_BASE_DIR of the attachments workspace
}

const testFrom = "agent@sandbox.localhost"

func newTestEnv(t testing.TB, opts tools.Options) *testEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sb, err := devmail.Start(ctx, devmail.Options{
		IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0",
		Username: "sandbox", Password: "pw-for-tests",
	})
	if err != nil {
		t.Fatalf("devmail.Start() = %v", err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	host, port := splitAddr(t, sb.IMAPAddr())
	mail := imap.New(imap.Options{Host: host, Port: port, Username: "sandbox", Password: "pw-for-tests", Security: imap.SecurityPlain, PoolSize: 2})
	t.Cleanup(func() { _ = mail.Close() })
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	shost, sport := splitAddr(t, sb.SMTPAddr())
	sender := smtp.New(smtp.Options{Host: shost, Port: sport, Security: smtp.SecurityPlain})
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base, MaxFileSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	ts, err := tools.New(tools.Deps{Mail: mail, Files: ws, Sender: sender, Sent: mail,
		Send:  tools.SendOptions{From: testFrom, FromName: "Test Agent", SaveSent: "auto"},
		Inbox: mail, Inboxes: tools.InboxOptions{Address: "inbox@sandbox.localhost", Sandbox: true, WaitMax: 30 * time.Second}}, opts)
	if err != nil {
		t.Fatalf("tools.New() = %v", err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{testKey}})
	if err != nil {
		t.Fatalf("auth.New() = %v", err)
	}
	h, err := transport.Handler(ts.Server, transport.Options{Auth: mw, Ready: []transport.ReadyCheck{{Name: "imap", Check: mail.Noop}}})
	if err != nil {
		t.Fatalf("Handler() = %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		srv.Close()
	})
	return &testEnv{sandbox: sb, mail: mail, tools: ts, http: srv, base: base}
}

func splitAddr(t testing.TB, addr string) (string, int) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("SplitHostPort(%q) = %v", addr, err)
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

// sendMail delivers one message through the sandbox's SMTP port with go-smtp.
func (e *testEnv) sendMail(t testing.TB, to, subject string) {
	t.Helper()
	c, err := gosmtp.Dial(e.sandbox.SMTPAddr())
	if err != nil {
		t.Fatalf("smtp dial: %v", err)
	}
	defer c.Close()
	msg := "From: app@example.test\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nYour code is 123456\r\n"
	if err := c.SendMail("app@example.test", []string{to}, stringsReader(msg)); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
	_ = c.Quit()
}
