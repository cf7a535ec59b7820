package devmail_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	gosmtp "github.com/emersion/go-smtp"
)

const testPassword = "s3cret-sandbox-pass"

// waitFor is the failure guard of every wait: generous, never a timing
// assertion.
const waitFor = 10 * time.Second

// startServer runs a sandbox on 127.0.0.1:0 and closes it at cleanup.
func startServer(t *testing.T, opts devmail.Options) *devmail.Server {
	t.Helper()
	opts.IMAPAddr = "127.0.0.1:0"
	opts.SMTPAddr = "127.0.0.1:0"
	if opts.Password == "" {
		opts.Password = testPassword
	}
	s, err := devmail.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start() = %v, want nil", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	return s
}

// dialIMAP logs in to the sandbox and closes the client at cleanup.
func dialIMAP(t *testing.T, s *devmail.Server, opts *imapclient.Options) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(s.IMAPAddr(), opts)
	if err != nil {
		t.Fatalf("DialInsecure() = %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Login(s.Username(), testPassword).Wait(); err != nil {
		t.Fatalf("Login() = %v, want nil", err)
	}
	return c
}

// sendSMTP sends one message over plaintext SMTP.
func sendSMTP(t *testing.T, s *devmail.Server, from string, rcpts []string, msg string) error {
	t.Helper()
	return send(s.SMTPAddr(), from, rcpts, msg)
}

// send is sendSMTP for goroutines other than the test's.
func send(addr, from string, rcpts []string, msg string) error {
	c, err := gosmtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		return err
	}
	if err := c.SendMail(from, rcpts, strings.NewReader(msg)); err != nil {
		return err
	}
	return c.Quit()
}

// trustServer is a TLS config that trusts the sandbox certificate.
func trustServer(t *testing.T, s *devmail.Server) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CertificatePEM()) {
		t.Fatal("CertificatePEM() holds no certificate")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// fetched is one message as a test reads it.
type fetched struct {
	UID   imap.UID
	Flags []imap.Flag
	Date  time.Time
	Raw   []byte
}

// fetchAll reads every message of a folder, without setting \Seen.
func fetchAll(t *testing.T, c *imapclient.Client, folder string) []fetched {
	t.Helper()
	sel, err := c.Select(folder, nil).Wait()
	if err != nil {
		t.Fatalf("Select(%q) = %v", folder, err)
	}
	if sel.NumMessages == 0 {
		return nil
	}
	bufs, err := c.Fetch(imap.UIDSet{{Start: 1, Stop: 0}}, &imap.FetchOptions{
		UID: true, Flags: true, InternalDate: true,
		BodySection: []*imap.FetchItemBodySection{{Peek: true}},
	}).Collect()
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", folder, err)
	}
	out := make([]fetched, 0, len(bufs))
	for _, b := range bufs {
		var raw []byte
		if len(b.BodySection) > 0 {
			raw = b.BodySection[0].Bytes
		}
		out = append(out, fetched{UID: b.UID, Flags: b.Flags, Date: b.InternalDate, Raw: raw})
	}
	return out
}

// status returns MESSAGES and UNSEEN of a folder.
func status(t *testing.T, c *imapclient.Client, folder string) (messages, unseen uint32) {
	t.Helper()
	st, err := c.Status(folder, &imap.StatusOptions{NumMessages: true, NumUnseen: true}).Wait()
	if err != nil {
		t.Fatalf("Status(%q) = %v", folder, err)
	}
	return *st.NumMessages, *st.NumUnseen
}

// header returns the value of the first header field name in raw, with
// folding undone.
func header(raw []byte, name string) string {
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	var out []string
	in := false
	for _, line := range strings.Split(string(head), "\r\n") {
		switch {
		case in && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			out = append(out, strings.TrimSpace(line))
		case in:
			return strings.Join(out, " ")
		default:
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.EqualFold(k, name) {
				in = true
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	return strings.Join(out, " ")
}

// message builds a small CRLF message.
func message(subject, to, body string) string {
	return "From: app@example.test\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + strings.ReplaceAll(subject, " ", "-") + "@example.test>\r\n\r\n" + body + "\r\n"
}

// eventually polls cond until it holds or waitFor passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still false after %v", what, waitFor)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// timeAfter is the failure guard of a select.
func timeAfter(t *testing.T) <-chan time.Time {
	t.Helper()
	return time.After(waitFor)
}
