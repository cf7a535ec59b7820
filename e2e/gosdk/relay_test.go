package gosdk

import (
	"errors"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The test Dovecot has IMAP and LMTP but no submission service. The relay
// stands in for the MTA: SMTP with AUTH PLAIN (any login, the test
// password) on a loopback port, each transaction passed on as it comes to
// Dovecot's LMTP, so a recipient LMTP refuses is refused at RCPT and a
// message is in the mailbox when DATA answers 250.
type relay struct {
	lmtpAddr, password string
}

// startRelay serves the relay on a free loopback port until the test ends
// and returns its address.
func startRelay(t *testing.T, lmtpAddr, password string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := smtp.NewServer(&relay{lmtpAddr: lmtpAddr, password: password})
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.ReadTimeout, s.WriteTimeout = 30*time.Second, 30*time.Second
	s.MaxMessageBytes, s.MaxRecipients = 60<<20, 100
	s.ErrorLog = log.New(io.Discard, "", 0)
	done := make(chan struct{})
	go func() { _ = s.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	return ln.Addr().String()
}

// NewSession implements smtp.Backend.
func (r *relay) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &relaySession{relay: r}, nil
}

// relaySession is one SMTP session; lmtp is the LMTP connection of its
// current transaction (from MAIL to the end of DATA or RSET).
type relaySession struct {
	relay  *relay
	authed bool
	lmtp   *smtp.Client
}

// AuthMechanisms implements smtp.AuthSession.
func (s *relaySession) AuthMechanisms() []string { return []string{sasl.Plain} }

// Auth implements smtp.AuthSession.
func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, _, password string) error {
		if password != s.relay.password {
			return smtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}

// Mail opens the transaction's LMTP connection.
func (s *relaySession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	s.Reset()
	nc, err := net.DialTimeout("tcp", s.relay.lmtpAddr, 10*time.Second)
	if err != nil {
		return tempFailure(err)
	}
	c := smtp.NewClientLMTP(nc)
	c.CommandTimeout, c.SubmissionTimeout = 30*time.Second, 60*time.Second
	if err := c.Hello("localhost"); err != nil {
		c.Close()
		return tempFailure(err)
	}
	s.lmtp = c
	return c.Mail(from, nil)
}

// Rcpt asks LMTP whether it takes the recipient; its answer is the relay's.
func (s *relaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.lmtp == nil {
		return &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "MAIL first"}
	}
	return s.lmtp.Rcpt(to, nil)
}

// Data passes the message on; it answers 250 once LMTP delivered it to every
// recipient.
func (s *relaySession) Data(r io.Reader) error {
	if s.lmtp == nil {
		return &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "MAIL first"}
	}
	defer s.Reset()
	w, err := s.lmtp.Data()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		return tempFailure(err)
	}
	err = w.Close()
	var perRcpt smtp.LMTPDataError
	if errors.As(err, &perRcpt) {
		for _, e := range perRcpt {
			return e // one refusal answers for the message
		}
	}
	return err
}

// Reset ends the transaction's LMTP connection.
func (s *relaySession) Reset() {
	if s.lmtp != nil {
		_ = s.lmtp.Quit()
		_ = s.lmtp.Close()
		s.lmtp = nil
	}
}

// Logout implements smtp.Session.
func (s *relaySession) Logout() error {
	s.Reset()
	return nil
}

// tempFailure is a 451 for a failure of the relay's own path to LMTP.
func tempFailure(err error) error {
	return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "relay: " + err.Error()}
}
