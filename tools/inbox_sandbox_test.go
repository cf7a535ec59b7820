package tools_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/tools"
)

// smtpSend sends one mail to the sandbox's SMTP port, as an app under test
// does.
func smtpSend(tb testing.TB, addr, to, subject, body string) {
	tb.Helper()
	c, err := gosmtp.Dial(addr)
	if err != nil {
		tb.Fatalf("smtp dial: %v", err)
	}
	defer c.Close()
	msg := fmt.Sprintf("From: App <app@example.test>\r\nTo: %s\r\nSubject: %s\r\n\r\n%s\r\n", to, subject, body)
	if err := c.SendMail("app@example.test", []string{to}, strings.NewReader(msg)); err != nil {
		tb.Fatalf("SendMail() = %v", err)
	}
}

// TestSandboxOTPEndToEnd: the whole loop of the sandbox: create_inbox gives
// an address on the sandbox's domain, the app sends through the SMTP port,
// wait_for_otp returns the code.
func TestSandboxOTPEndToEnd(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := &inboxEnv{mailEnv: sandboxClient(t, env), mail: env.mail}
	in := e.create(t, "signup")
	if in.Address != in.InboxID+"@sandbox.localhost" {
		t.Fatalf("sandbox inbox address = %q", in.Address)
	}
	since := e.nextSince(t, in.InboxID)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := tryCallTool(e.client, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20})
		done <- answer{res, err}
	}()
	smtpSend(t, env.sandbox.SMTPAddr(), "someone-else@sandbox.localhost", "Your code", "Your code is 111111")
	smtpSend(t, env.sandbox.SMTPAddr(), in.Address, "Confirm your account", "Your verification code is 583 920.")
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("wait_for_otp: %v", a.err)
		}
		var got inboxtools.WaitOTPResult
		structured(t, a.res, &got)
		if got.OTP != "583920" {
			t.Errorf("wait_for_otp = %+v, want 583920 (not the other inbox's 111111)", got)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("wait_for_otp did not return")
	}
}

// BenchmarkSandboxOTPLatency measures, in the sandbox, the time from the end
// of the SMTP DATA (SendMail returning) to wait_for_otp's result, with the
// wait already blocked: go test ./tools -run '^$' -bench SandboxOTPLatency
func BenchmarkSandboxOTPLatency(b *testing.B) {
	env := newTestEnv(b, tools.Options{})
	e := &inboxEnv{mailEnv: sandboxClient(b, env), mail: env.mail}
	in := e.create(b, "bench")
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		since := e.nextSince(b, in.InboxID)
		done := make(chan time.Time, 1)
		go func() {
			defer func() { done <- time.Now() }() // always: the loop below waits for it
			res, err := tryCallTool(e.client, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20})
			if err != nil {
				b.Error(err)
			} else if res.IsError {
				b.Error(res.Content)
			}
		}()
		for j := 0; j < 500 && env.mail.WatchStats().Subscribers == 0; j++ {
			time.Sleep(time.Millisecond)
		}
		smtpSend(b, env.sandbox.SMTPAddr(), in.Address, "Code", fmt.Sprintf("Your code is %06d", 100000+i))
		sent := time.Now()
		// The result can come before SendMail has read the 250: 0 then.
		total += max(0, (<-done).Sub(sent))
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-data-to-result")
}
