package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// lmtp delivers messages to Dovecot's LMTP, as an MTA does: one connection
// per delivery, so that concurrent deliveries need no lock.
type lmtp struct{ addr string }

// deliver hands one message to LMTP and returns when Dovecot has answered
// the end of DATA (the message is then in the mailbox).
func (l lmtp) deliver(from string, to []string, msg []byte) error {
	conn, err := net.DialTimeout("tcp", l.addr, 10*time.Second)
	if err != nil {
		return err
	}
	c := gosmtp.NewClientLMTP(conn)
	defer c.Close()
	c.CommandTimeout, c.SubmissionTimeout = 20*time.Second, 30*time.Second
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if err := c.SendMail(from, to, bytes.NewReader(msg)); err != nil {
		return err
	}
	return c.Quit()
}

// relay is the submission server the replicas send through (the test
// Dovecot has none): SMTP with AUTH PLAIN on loopback, each accepted
// message delivered through LMTP. It counts what it delivered.
type relay struct {
	lmtp      lmtp
	password  string
	srv       *gosmtp.Server
	addr      string
	delivered atomic.Int64
}

func startRelay(l lmtp, password string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{lmtp: l, password: password, addr: ln.Addr().String()}
	s := gosmtp.NewServer(r)
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.MaxMessageBytes, s.MaxRecipients = 10<<20, 50
	s.ReadTimeout, s.WriteTimeout = 30*time.Second, 30*time.Second
	s.ErrorLog = log.New(io.Discard, "", 0)
	r.srv = s
	go func() { _ = s.Serve(ln) }()
	return r, nil
}

func (r *relay) close() { _ = r.srv.Close() }

// NewSession is go-smtp's Backend.
func (r *relay) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }

type relaySession struct {
	r      *relay
	authed bool
	from   string
	to     []string
}

func (s *relaySession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, _, pass string) error {
		if pass != s.r.password {
			return gosmtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}

func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error {
	if !s.authed {
		return gosmtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *relaySession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *relaySession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := s.r.lmtp.deliver(s.from, s.to, raw); err != nil {
		var se *gosmtp.SMTPError
		if errors.As(err, &se) {
			return se
		}
		return &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: fmt.Sprintf("lmtp: %v", err)}
	}
	s.r.delivered.Add(1)
	return nil
}

func (s *relaySession) Reset()        { s.from, s.to = "", nil }
func (s *relaySession) Logout() error { return nil }
