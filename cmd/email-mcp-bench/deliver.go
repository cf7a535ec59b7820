package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// deliverer hands mail to the server under test as an app or an MTA does:
// SMTP to the sandbox's catch-all port, or LMTP to Dovecot. One session is
// kept for every message.
type deliverer struct {
	c *gosmtp.Client
}

// dialDeliverer connects to addr and greets; lmtp selects LMTP.
func dialDeliverer(ctx context.Context, addr string, lmtp bool) (*deliverer, error) {
	nc, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	var c *gosmtp.Client
	if lmtp {
		c = gosmtp.NewClientLMTP(nc)
	} else {
		c = gosmtp.NewClient(nc)
	}
	c.CommandTimeout, c.SubmissionTimeout = 10*time.Second, 30*time.Second
	if err := c.Hello("localhost"); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("hello: %w", err)
	}
	return &deliverer{c: c}, nil
}

// send delivers one message to rcpt and returns when the server has
// answered the end of DATA (250, for LMTP the recipient's 250).
func (d *deliverer) send(rcpt string, msg []byte) error {
	if err := d.c.Mail("app@example.test", nil); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	if err := d.c.Rcpt(rcpt, nil); err != nil {
		return fmt.Errorf("rcpt to: %w", err)
	}
	w, err := d.c.Data()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		_ = w.Close()
		return fmt.Errorf("data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("end of data: %w", err)
	}
	return nil
}

// close quits politely.
func (d *deliverer) close() {
	_ = d.c.Quit()
	_ = d.c.Close()
}

// otpMail is a sign-up mail carrying code, as an app sends it.
func otpMail(rcpt, code string, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: Example App <no-reply@app.example.test>\r\nTo: %s\r\n", rcpt)
	fmt.Fprintf(&b, "Subject: Your verification code\r\nMessage-ID: <bench-%d-%s@app.example.test>\r\n", n, code)
	fmt.Fprintf(&b, "Date: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Hello,\r\n\r\nYour verification code is %s. It expires in 10 minutes.\r\n\r\nIf you did not sign up, ignore this mail.\r\n", code)
	return []byte(b.String())
}
