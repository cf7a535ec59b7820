package devmail_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

func TestSMTPCatchAllWithBcc(t *testing.T) {
	s := startServer(t, devmail.Options{})
	msg := message("hello", "alice@example.test", "Your code is 123456.")
	rcpts := []string{"alice@example.test", "hidden-bcc@other.test"}
	if err := sendSMTP(t, s, "app@example.test", rcpts, msg); err != nil {
		t.Fatalf("SendMail() = %v, want nil", err)
	}
	c := dialIMAP(t, s, nil)
	msgs := fetchAll(t, c, "INBOX")
	if len(msgs) != 1 {
		t.Fatalf("INBOX holds %d messages, want 1", len(msgs))
	}
	raw := msgs[0].Raw
	if got, want := header(raw, "Envelope-To"), "alice@example.test, hidden-bcc@other.test"; got != want {
		t.Errorf("Envelope-To = %q, want %q", got, want)
	}
	if got, want := header(raw, "Return-Path"), "<app@example.test>"; got != want {
		t.Errorf("Return-Path = %q, want %q", got, want)
	}
	rcv := header(raw, "Received")
	for _, want := range []string{"from client.test ([127.0.0.1])", "by sandbox.localhost (devmail) with ESMTP id"} {
		if !strings.Contains(rcv, want) {
			t.Errorf("Received = %q, want it to contain %q", rcv, want)
		}
	}
	if !bytes.HasSuffix(raw, []byte(msg)) {
		t.Errorf("stored message does not end with the sent one:\n%s", raw)
	}
	if m, u := status(t, c, "INBOX"); m != 1 || u != 1 {
		t.Errorf("STATUS INBOX = %d messages, %d unseen; want 1, 1", m, u)
	}
}

func TestSMTPStartTLSAndAuth(t *testing.T) {
	s := startServer(t, devmail.Options{})
	tests := []struct {
		name      string
		tls       bool
		auth      sasl.Client
		wantProto string
	}{
		{"starttls", true, nil, "with ESMTPS id"},
		{"starttls plain auth", true, sasl.NewPlainClient("", "anyone", "anything"), "with ESMTPSA id"},
		{"plaintext login auth", false, sasl.NewLoginClient("someone", "whatever"), "with ESMTPA id"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c *gosmtp.Client
			var err error
			if tt.tls {
				c, err = gosmtp.DialStartTLS(s.SMTPAddr(), trustServer(t, s))
			} else {
				c, err = gosmtp.Dial(s.SMTPAddr())
			}
			if err != nil {
				t.Fatalf("dial = %v", err)
			}
			defer c.Close()
			if err := c.Hello("tls.test"); err != nil {
				t.Fatalf("Hello() = %v (certificate not trusted?)", err)
			}
			if st, ok := c.TLSConnectionState(); tt.tls && (!ok || !st.HandshakeComplete) {
				t.Fatalf("TLS handshake not complete")
			}
			if tt.auth != nil {
				if err := c.Auth(tt.auth); err != nil {
					t.Fatalf("Auth() = %v, want nil (any credentials)", err)
				}
			}
			msg := message("tls "+tt.name, "bob@example.test", "body")
			if err := c.SendMail("app@example.test", []string{"bob@example.test"}, strings.NewReader(msg)); err != nil {
				t.Fatalf("SendMail() = %v", err)
			}
			msgs := fetchAll(t, dialIMAP(t, s, nil), "INBOX")
			if len(msgs) != i+1 {
				t.Fatalf("INBOX holds %d messages, want %d", len(msgs), i+1)
			}
			if rcv := header(msgs[i].Raw, "Received"); !strings.Contains(rcv, tt.wantProto) || !strings.Contains(rcv, "for <bob@example.test>") {
				t.Errorf("Received = %q, want %q and the single recipient", rcv, tt.wantProto)
			}
		})
	}
}

func TestSMTPOversizedRejected(t *testing.T) {
	s := startServer(t, devmail.Options{MaxMessageBytes: 2048})
	big := message("big", "bob@example.test", strings.Repeat("0123456789abcdef\r\n", 400))
	err := sendSMTP(t, s, "app@example.test", []string{"bob@example.test"}, big)
	var smtpErr *gosmtp.SMTPError
	if !errors.As(err, &smtpErr) || smtpErr.Code != 552 {
		t.Fatalf("SendMail(oversized) = %v, want SMTP 552", err)
	}
	if m, _ := status(t, dialIMAP(t, s, nil), "INBOX"); m != 0 {
		t.Errorf("INBOX holds %d messages after a 552, want 0", m)
	}
	if err := sendSMTP(t, s, "app@example.test", []string{"bob@example.test"}, message("small", "bob@example.test", "ok")); err != nil {
		t.Errorf("SendMail(small) after a 552 = %v, want nil", err)
	}
}

// An empty DATA and a message without a header block are kept: the trace
// headers become their header block.
func TestSMTPOddMessagesKept(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"no header block", "just a line of text\r\nand another\r\n"},
		{"broken header", "Subject no colon here\r\n\r\nbody\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, devmail.Options{})
			if err := sendSMTP(t, s, "app@example.test", []string{"x@example.test"}, tt.data); err != nil {
				t.Fatalf("SendMail() = %v, want nil", err)
			}
			c := dialIMAP(t, s, nil)
			msgs := fetchAll(t, c, "INBOX")
			if len(msgs) != 1 {
				t.Fatalf("INBOX holds %d messages, want 1", len(msgs))
			}
			if !bytes.HasSuffix(msgs[0].Raw, []byte(tt.data)) {
				t.Fatalf("stored %q, want it to end with the data %q", msgs[0].Raw, tt.data)
			}
			if header(msgs[0].Raw, "Envelope-To") != "x@example.test" {
				t.Errorf("Envelope-To missing in %q", msgs[0].Raw)
			}
			// ENVELOPE and BODYSTRUCTURE must not break on it.
			if _, err := c.Fetch(imap.UIDSetNum(msgs[0].UID), &imap.FetchOptions{Envelope: true, BodyStructure: &imap.FetchItemBodyStructure{}}).Collect(); err != nil {
				t.Errorf("Fetch(ENVELOPE BODYSTRUCTURE) = %v, want nil", err)
			}
		})
	}
}

func TestDeliver(t *testing.T) {
	s := startServer(t, devmail.Options{MaxMessageBytes: 4096})
	ctx := context.Background()
	msg := message("code", "agent+inbox1@sandbox.test", "Your code is 424242")
	if err := s.Deliver(ctx, []byte(msg), []string{"agent+inbox1@sandbox.test"}); err != nil {
		t.Fatalf("Deliver() = %v, want nil", err)
	}
	msgs := fetchAll(t, dialIMAP(t, s, nil), "INBOX")
	if len(msgs) != 1 {
		t.Fatalf("INBOX holds %d messages, want 1", len(msgs))
	}
	if got := header(msgs[0].Raw, "Envelope-To"); got != "agent+inbox1@sandbox.test" {
		t.Errorf("Envelope-To = %q", got)
	}
	if rcv := header(msgs[0].Raw, "Received"); !strings.Contains(rcv, "with local id") {
		t.Errorf("Received = %q, want a local delivery", rcv)
	}
	if !bytes.HasSuffix(msgs[0].Raw, []byte(msg)) {
		t.Errorf("body not intact: %q", msgs[0].Raw)
	}
	if err := s.Deliver(ctx, bytes.Repeat([]byte("x"), 5000), nil); !errors.Is(err, devmail.ErrTooLarge) {
		t.Errorf("Deliver(5000 bytes) = %v, want ErrTooLarge", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Deliver(cancelled, []byte(msg), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Deliver(cancelled ctx) = %v, want context.Canceled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := s.Deliver(ctx, []byte(msg), nil); !errors.Is(err, devmail.ErrClosed) {
		t.Errorf("Deliver after Close = %v, want ErrClosed", err)
	}
}

// TestSMTPUTF8: the sandbox takes internationalized mail (RFC 6531) as the
// big providers do: an app under test may send from or to a non-ASCII
// address, and a client must not use SMTPUTF8 unless it is offered.
func TestSMTPUTF8(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c, err := gosmtp.Dial(s.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("SMTPUTF8"); !ok {
		t.Fatal("EHLO does not offer SMTPUTF8")
	}
	msg := "From: Jörg <jörg@bücher.example>\r\nTo: Zoë <zoë@example.test>\r\nSubject: Grüße\r\n\r\nCode 424242\r\n"
	if err := c.Mail("jörg@bücher.example", &gosmtp.MailOptions{UTF8: true}); err != nil {
		t.Fatalf("MAIL FROM with SMTPUTF8 = %v", err)
	}
	if err := c.Rcpt("zoë@example.test", nil); err != nil {
		t.Fatalf("RCPT TO = %v", err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("DATA = %v", err)
	}
	raw := fetchAll(t, dialIMAP(t, s, nil), "INBOX")[0].Raw
	if got := header(raw, "Envelope-To"); got != "zoë@example.test" {
		t.Errorf("Envelope-To = %q, want zoë@example.test", got)
	}
	if rcv := header(raw, "Received"); !strings.Contains(rcv, "with UTF8SMTP id") {
		t.Errorf("Received = %q, want the protocol UTF8SMTP (RFC 6531 section 3.7.3)", rcv)
	}
	if !bytes.HasSuffix(raw, []byte(msg)) {
		t.Errorf("stored message does not end with the sent one:\n%s", raw)
	}
}

// doc.go: when the data's "header block does not parse ..., an empty line is
// put after the trace headers and the data is stored byte for byte as the
// body". Data starting with white space does not parse on its own, but is
// glued onto the server's Received header as a continuation line.
func TestLeadingWhitespaceNotGluedToReceived(t *testing.T) {
	s := startServer(t, devmail.Options{})
	data := " X-Injected: by-sender\r\nSubject: s\r\n\r\nbody\r\n"
	if err := sendSMTP(t, s, "app@x.test", []string{"u@x.test"}, data); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
	msgs := fetchAll(t, dialIMAP(t, s, nil), "INBOX")
	if len(msgs) != 1 {
		t.Fatalf("INBOX holds %d messages, want 1", len(msgs))
	}
	rcv := header(msgs[0].Raw, "Received")
	if strings.Contains(rcv, "X-Injected") || !strings.HasSuffix(string(msgs[0].Raw), "\r\n\r\n"+data) {
		t.Errorf("Received = %q (the data's first line became part of it); stored:\n%q", rcv, msgs[0].Raw)
	}
}

// RFC 5322 section 2.1.1: a header line MUST be no more than 998 characters.
// The HELO name goes unshortened into Received.
func TestReceivedLineLength(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c, err := gosmtp.Dial(s.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello(strings.Repeat("a", 1500) + ".test"); err != nil {
		t.Fatalf("Hello() = %v", err)
	}
	if err := c.SendMail("a@x.test", []string{"u@x.test"}, strings.NewReader(message("long", "u@x.test", "x"))); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
	_ = c.Quit()
	msgs := fetchAll(t, dialIMAP(t, s, nil), "INBOX")
	if len(msgs) != 1 {
		t.Fatalf("INBOX holds %d messages, want 1", len(msgs))
	}
	for _, line := range strings.Split(string(msgs[0].Raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("header line of %d characters (max 998): %.60q...", len(line), line)
		}
	}
}
