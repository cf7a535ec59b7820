package gosdk

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// memAccount is a second account on the sandbox tier: go-imap's in-memory
// IMAP server with one user, and a go-smtp sink in front of it that
// stores every mail it takes in that user's INBOX. Its variables have no
// prefix; the caller adds the account's.
func memAccount(t *testing.T, user string) *account {
	t.Helper()
	pass := "pw-" + randomHex(t)
	u := imapmemserver.NewUser(user, pass)
	for _, name := range []string{"INBOX", "Sent", "Drafts", "Trash"} {
		if err := u.Create(name, nil); err != nil {
			t.Fatal(err)
		}
	}
	mem := imapmemserver.New()
	mem.AddUser(u)
	imapAddr := serveIMAP(t, mem)
	smtpAddr := serveSink(t, u)
	host, imapPort, _ := net.SplitHostPort(imapAddr)
	_, smtpPort, _ := net.SplitHostPort(smtpAddr)
	me := user + "@example.test"
	return &account{tier: "memserver", me: me, app: "app@example.test", smtpAddr: smtpAddr,
		env: []string{"IMAP_HOST=" + host, "IMAP_PORT=" + imapPort, "IMAP_SSL=false", "IMAP_STARTTLS=false",
			"IMAP_USER=" + user, "IMAP_PASSWORD=" + pass, "INBOX_ADDRESS=" + me,
			"SMTP_HOST=127.0.0.1", "SMTP_PORT=" + smtpPort, "SMTP_STARTTLS=false"}}
}

// serveIMAP serves mem on a free loopback port, in plain text, until the
// test ends.
func serveIMAP(t *testing.T, mem *imapmemserver.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps: imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}, imap.CapNamespace: {}},
		// go-imap's imapserver.Logger, quiet: a client that hangs up is not news.
		Logger:       log.New(io.Discard, "", 0),
		InsecureAuth: true,
	})
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return ln.Addr().String()
}

// sink is an SMTP server that takes any login and any recipient and
// stores each message in the INBOX of user.
type sink struct{ user *imapmemserver.User }

// serveSink serves the sink on a free loopback port until the test ends.
func serveSink(t *testing.T, user *imapmemserver.User) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := smtp.NewServer(sink{user})
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.ReadTimeout, s.WriteTimeout = 30*time.Second, 30*time.Second
	s.MaxMessageBytes = 60 << 20
	s.ErrorLog = log.New(io.Discard, "", 0)
	done := make(chan struct{})
	go func() { _ = s.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	return ln.Addr().String()
}

// NewSession implements smtp.Backend.
func (k sink) NewSession(*smtp.Conn) (smtp.Session, error) { return k, nil }

// AuthMechanisms implements smtp.AuthSession.
func (sink) AuthMechanisms() []string { return []string{sasl.Plain} }

// Auth implements smtp.AuthSession: any login.
func (sink) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, _, _ string) error { return nil }), nil
}

func (sink) Mail(string, *smtp.MailOptions) error { return nil }
func (sink) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (sink) Reset()                               {}
func (sink) Logout() error                        { return nil }

// Data stores the message; it answers 250 once the INBOX holds it.
func (k sink) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if _, err := k.user.Append("INBOX", bytes.NewReader(b), &imap.AppendOptions{Time: time.Now()}); err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return nil
}
