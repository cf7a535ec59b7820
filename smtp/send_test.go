package smtp_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/smtp"
)

func TestSendEveryMode(t *testing.T) {
	tests := []struct {
		name     string
		server   serverMode
		security smtp.Security
		mechs    []string
		wantTLS  bool
		wantMode string
	}{
		{"plaintext", plainServer, smtp.SecurityPlain, nil, false, "plaintext"},
		{"starttls required", startTLSServer, smtp.SecurityStartTLS, nil, true, "STARTTLS"},
		{"implicit tls", implicitServer, smtp.SecurityTLS, nil, true, "implicit TLS"},
		{"optional, offered", startTLSServer, smtp.SecurityStartTLSOptional, nil, true, "STARTTLS"},
		{"optional, not offered", plainServer, smtp.SecurityStartTLSOptional, nil, false, "plaintext"},
		{"login only", startTLSServer, smtp.SecurityStartTLS, []string{sasl.Login}, true, "STARTTLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &backend{mechs: tt.mechs, requireAuth: true}
			port := newTestServer(t, tt.server, be)
			s := newSender(port, tt.security)
			m := testMessage()
			env := m.Envelope()
			res, err := s.Send(ctxTimeout(t, 30*time.Second), env, m)
			if err != nil {
				t.Fatalf("Send() = %v, want nil", err)
			}
			if !slices.Equal(res.Accepted, env.To) || len(res.Rejected) != 0 {
				t.Errorf("Send() result = %+v, want all of %v accepted", res, env.To)
			}
			got := be.received()
			if len(got) != 1 {
				t.Fatalf("server received %d messages, want 1", len(got))
			}
			r := got[0]
			if r.TLS != tt.wantTLS || !r.Authed || r.From != testUser || !slices.Equal(r.To, env.To) {
				t.Errorf("server saw TLS=%v authed=%v from=%q to=%v; want TLS=%v, authed, %q, %v",
					r.TLS, r.Authed, r.From, r.To, tt.wantTLS, testUser, env.To)
			}
			mr, _ := parse(t, r.Data)
			if mr.Header.Has("Bcc") || bytes.Contains(r.Data, []byte("hidden@example.com")) || !slices.Contains(r.To, "hidden@example.com") {
				t.Errorf("the Bcc address must be in the envelope (%v) and nowhere in the message", r.To)
			}
			if s, _ := mr.Header.Subject(); s != m.Subject {
				t.Errorf("received Subject %q, want %q", s, m.Subject)
			}
			var want bytes.Buffer
			if _, err := m.WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(r.Data, want.Bytes()) {
				t.Errorf("server got bytes that differ from a second WriteTo:\n%s\n---\n%s", r.Data, want.Bytes())
			}

			d := s.Diagnose(ctxTimeout(t, 30*time.Second))
			if d.Err != nil || d.Mode != tt.wantMode || (d.TLSVersion != "") != tt.wantTLS || !d.AuthOK {
				t.Errorf("Diagnose() = err %v, mode %q, TLS %q, authOK %v; want nil, %q, TLS=%v, true",
					d.Err, d.Mode, d.TLSVersion, d.AuthOK, tt.wantMode, tt.wantTLS)
			}
			if len(d.Steps) < 3 || !hasPrefix(d.Extensions, "SIZE") || len(d.AuthMechanisms) == 0 {
				t.Errorf("Diagnose() steps %q, extensions %q, mechanisms %q: want steps, SIZE and AUTH",
					d.Steps, d.Extensions, d.AuthMechanisms)
			}
		})
	}
}

func hasPrefix(list []string, prefix string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

func TestCheck(t *testing.T) {
	be := &backend{}
	port := newTestServer(t, startTLSServer, be)
	if err := newSender(port, smtp.SecurityStartTLS).Check(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Errorf("Check() = %v, want nil", err)
	}
	bad := newSender(port, smtp.SecurityStartTLS, func(o *smtp.Options) { o.Password = "wrong" })
	if err := bad.Check(ctxTimeout(t, 30*time.Second)); !errors.Is(err, smtp.ErrAuthFailed) {
		t.Errorf("Check() with a wrong password = %v, want ErrAuthFailed", err)
	}
	if mails, _ := be.counts(); mails != 0 {
		t.Errorf("Check sent %d MAIL commands, want 0", mails)
	}
}

func TestStartTLSRequiredButNotOffered(t *testing.T) {
	be := &backend{}
	port := newTestServer(t, plainServer, be)
	s := newSender(port, smtp.SecurityStartTLS)
	m := testMessage()
	_, err := s.Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
	if !errors.Is(err, smtp.ErrTLS) {
		t.Fatalf("Send() = %v, want ErrTLS", err)
	}
	if err := s.Check(ctxTimeout(t, 30*time.Second)); !errors.Is(err, smtp.ErrTLS) {
		t.Errorf("Check() = %v, want ErrTLS", err)
	}
	if mails, auths := be.counts(); mails+auths != 0 {
		t.Errorf("server saw %d MAIL and %d AUTH, want none", mails, auths)
	}
}

func TestUntrustedCertificateIsTLSError(t *testing.T) {
	tests := []struct {
		name     string
		server   serverMode
		security smtp.Security
	}{
		{"starttls", startTLSServer, smtp.SecurityStartTLS},
		{"starttls optional", startTLSServer, smtp.SecurityStartTLSOptional},
		{"implicit", implicitServer, smtp.SecurityTLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &backend{}
			port := newTestServer(t, tt.server, be)
			s := newSender(port, tt.security, func(o *smtp.Options) {
				o.TLSConfig = &tls.Config{RootCAs: x509.NewCertPool()} // trusts nothing
			})
			m := testMessage()
			_, err := s.Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
			var certErr *tls.CertificateVerificationError
			if !errors.Is(err, smtp.ErrTLS) || errors.Is(err, smtp.ErrAuthFailed) || !errors.As(err, &certErr) {
				t.Fatalf("Send() = %v, want ErrTLS with the certificate error, not an AUTH error", err)
			}
			if _, auths := be.counts(); auths != 0 {
				t.Errorf("server saw %d AUTH exchanges, want none before a verified handshake", auths)
			}
		})
	}
}

func TestAuthFailures(t *testing.T) {
	tests := []struct {
		name string
		edit func(*smtp.Options)
		be   *backend
	}{
		{"wrong password 535", func(o *smtp.Options) { o.Password = "wrong" }, &backend{}},
		{"wrong password over LOGIN", func(o *smtp.Options) { o.Password = "wrong" }, &backend{mechs: []string{sasl.Login}}},
		{"no credentials, server requires them", func(o *smtp.Options) { o.Username, o.Password = "", "" }, &backend{requireAuth: true}},
		{"no mechanism we speak", nil, &backend{mechs: []string{"CRAM-MD5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := newTestServer(t, startTLSServer, tt.be)
			var edits []func(*smtp.Options)
			if tt.edit != nil {
				edits = append(edits, tt.edit)
			}
			s := newSender(port, smtp.SecurityStartTLS, edits...)
			m := testMessage()
			_, err := s.Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
			if !errors.Is(err, smtp.ErrAuthFailed) {
				t.Fatalf("Send() = %v, want ErrAuthFailed", err)
			}
			if strings.Contains(err.Error(), testPass) || strings.Contains(err.Error(), "wrong") {
				t.Errorf("error %q contains the password", err)
			}
			if len(tt.be.received()) != 0 {
				t.Error("a message was delivered")
			}
		})
	}
}

func TestAuthFailedCarriesReplyCode(t *testing.T) {
	port := newTestServer(t, startTLSServer, &backend{})
	s := newSender(port, smtp.SecurityStartTLS, func(o *smtp.Options) { o.Password = "wrong" })
	err := s.Check(ctxTimeout(t, 30*time.Second))
	var re *smtp.ReplyError
	if !errors.As(err, &re) || re.Code != 535 || re.Enhanced != "5.7.8" {
		t.Errorf("Check() = %v, want a ReplyError 535 5.7.8", err)
	}
	var se *gosmtp.SMTPError
	if errors.As(err, &se) {
		t.Error("a go-smtp SMTPError leaks out of the package")
	}
}

func TestPlaintextAuthToLoopbackIsAllowed(t *testing.T) {
	be := &backend{requireAuth: true}
	port := newTestServer(t, plainServer, be)
	m := testMessage()
	if _, err := newSender(port, smtp.SecurityPlain).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m); err != nil {
		t.Fatalf("Send() over plaintext to 127.0.0.1 = %v, want nil", err)
	}
	if got := be.received(); len(got) != 1 || !got[0].Authed || got[0].TLS {
		t.Errorf("server received %+v, want one authenticated plaintext message", got)
	}
}

func TestRecipientRejections(t *testing.T) {
	user550 := &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "No such user"}
	t.Run("one of three refused", func(t *testing.T) {
		be := &backend{rcptErr: map[string]*gosmtp.SMTPError{"carol@example.com": user550}}
		port := newTestServer(t, startTLSServer, be)
		m := testMessage()
		m.Bcc = nil
		res, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
		if err != nil {
			t.Fatalf("Send() = %v, want nil for a partial delivery", err)
		}
		wantAcc := []string{"bob@example.com", "dave@example.com"}
		wantRej := []smtp.Rejection{{Address: "carol@example.com", Code: 550, Reason: "No such user"}}
		if !slices.Equal(res.Accepted, wantAcc) || !slices.Equal(res.Rejected, wantRej) {
			t.Errorf("Send() result = %+v, want accepted %v rejected %v", res, wantAcc, wantRej)
		}
		if got := be.received(); len(got) != 1 || !slices.Equal(got[0].To, wantAcc) {
			t.Errorf("server delivered %+v, want one message to %v", got, wantAcc)
		}
	})
	t.Run("all refused", func(t *testing.T) {
		be := &backend{rcptErr: map[string]*gosmtp.SMTPError{"*": user550}}
		port := newTestServer(t, startTLSServer, be)
		m := testMessage()
		env := m.Envelope()
		_, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), env, m)
		var re *smtp.RejectedError
		if !errors.Is(err, smtp.ErrRejected) || !errors.As(err, &re) {
			t.Fatalf("Send() = %v, want a RejectedError", err)
		}
		if re.Stage != "RCPT" || re.Code != 550 || len(re.Result.Rejected) != len(env.To) || len(re.Result.Accepted) != 0 {
			t.Errorf("RejectedError = %+v, want RCPT 550 with all %d recipients", re, len(env.To))
		}
		if len(be.received()) != 0 {
			t.Error("server received DATA although every recipient was refused")
		}
	})
}

func TestMessageRejections(t *testing.T) {
	tests := []struct {
		name    string
		be      *backend
		want    error
		notWant error
	}{
		{"554 at DATA", &backend{dataErr: &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 7, 1}, Message: "spam"}},
			smtp.ErrRejected, smtp.ErrTooLarge},
		{"552 at DATA", &backend{dataErr: &gosmtp.SMTPError{Code: 552, EnhancedCode: gosmtp.EnhancedCode{5, 3, 4}, Message: "too big"}},
			smtp.ErrTooLarge, smtp.ErrRejected},
		{"dropped mid-DATA", &backend{dropInData: true}, smtp.ErrConnection, smtp.ErrRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := newTestServer(t, startTLSServer, tt.be)
			m := testMessage()
			m.Attachments = []smtp.Attachment{bytesAttachment("big.bin", bytes.Repeat([]byte("x"), 256<<10))}
			_, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
			if !errors.Is(err, tt.want) || errors.Is(err, tt.notWant) {
				t.Fatalf("Send() = %v, want %v and not %v", err, tt.want, tt.notWant)
			}
			if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Send() = %v, want no timeout", err)
			}
			var re *smtp.RejectedError
			if errors.As(err, &re) && (re.Stage != "DATA" || len(re.Result.Rejected) != len(m.Envelope().To)) {
				t.Errorf("RejectedError = %+v, want stage DATA with every recipient", re)
			}
		})
	}
}

func TestStalledUploadTimesOut(t *testing.T) {
	stall := make(chan struct{})
	port := newTestServer(t, plainServer, &backend{stallData: stall})
	t.Cleanup(func() { close(stall) }) // runs before the server stops
	s := newSender(port, smtp.SecurityPlain, func(o *smtp.Options) { o.CommandTimeout = 300 * time.Millisecond })
	m := testMessage()
	m.Attachments = []smtp.Attachment{bytesAttachment("big.bin", make([]byte, 24<<20))} // more than the socket buffers
	err := within(t, func() error { _, err := s.Send(context.Background(), m.Envelope(), m); return err })
	if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, smtp.ErrConnection) {
		t.Errorf("Send() to a server that stopped reading = %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestSizeLimitCheckedBeforeMail(t *testing.T) {
	be := &backend{maxBytes: 4000}
	port := newTestServer(t, startTLSServer, be)
	m := testMessage()
	m.Attachments = []smtp.Attachment{bytesAttachment("a.bin", make([]byte, 10000))}
	_, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
	if !errors.Is(err, smtp.ErrTooLarge) {
		t.Fatalf("Send() = %v, want ErrTooLarge", err)
	}
	if mails, _ := be.counts(); mails != 0 {
		t.Errorf("server saw %d MAIL commands, want the size refused before MAIL", mails)
	}
	m.Attachments = nil
	if _, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m); err != nil {
		t.Errorf("Send() of a small message = %v, want nil", err)
	}
}

func TestReasonIsSanitized(t *testing.T) {
	long := "first line\nsecond\tline " + strings.Repeat("blah ", 100)
	be := &backend{rcptErr: map[string]*gosmtp.SMTPError{"carol@example.com": {Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: long}}}
	port := newTestServer(t, startTLSServer, be)
	m := testMessage()
	res, err := newSender(port, smtp.SecurityStartTLS).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
	if err != nil || len(res.Rejected) != 1 {
		t.Fatalf("Send() = %+v, %v; want one rejection", res, err)
	}
	r := res.Rejected[0].Reason
	if strings.ContainsAny(r, "\r\n\t") || len(r) > 210 || !strings.HasPrefix(r, "first line ") || !strings.Contains(r, "second line blah") {
		t.Errorf("Reason = %q, want one short line starting with the server text", r)
	}
}

func TestServerThatNeverAnswers(t *testing.T) {
	port, _ := newSilentServer(t)
	t.Run("context deadline", func(t *testing.T) {
		s := newSender(port, smtp.SecurityStartTLS)
		ctx := ctxTimeout(t, 300*time.Millisecond)
		m := testMessage()
		err := within(t, func() error { _, err := s.Send(ctx, m.Envelope(), m); return err })
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, smtp.ErrConnection) {
			t.Errorf("Send() = %v, want context.DeadlineExceeded and not ErrConnection", err)
		}
	})
	t.Run("command timeout", func(t *testing.T) {
		s := newSender(port, smtp.SecurityTLS, func(o *smtp.Options) { o.CommandTimeout = 200 * time.Millisecond })
		err := within(t, func() error { return s.Check(context.Background()) })
		if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, smtp.ErrTLS) {
			t.Errorf("Check() = %v, want os.ErrDeadlineExceeded and not ErrTLS", err)
		}
	})
	for _, sec := range []smtp.Security{smtp.SecurityPlain, smtp.SecurityStartTLSOptional} {
		t.Run("command timeout "+sec.String(), func(t *testing.T) {
			s := newSender(port, sec, func(o *smtp.Options) { o.CommandTimeout = 200 * time.Millisecond })
			err := within(t, func() error { return s.Check(context.Background()) })
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("Check() = %v, want os.ErrDeadlineExceeded", err)
			}
		})
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	port, accepted := newSilentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-accepted:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := within(t, func() error { return newSender(port, smtp.SecurityPlain).Check(ctx) })
	if !errors.Is(err, context.Canceled) || errors.Is(err, smtp.ErrConnection) {
		t.Errorf("Check() = %v, want context.Canceled", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	err = newSender(port, smtp.SecurityPlain).Check(ctxTimeout(t, 30*time.Second))
	if !errors.Is(err, smtp.ErrConnection) {
		t.Errorf("Check() on a closed port = %v, want ErrConnection", err)
	}
}

func TestSendRefusesBadInputBeforeConnecting(t *testing.T) {
	be := &backend{}
	port := newTestServer(t, plainServer, be)
	s := newSender(port, smtp.SecurityPlain)
	good := testMessage()
	bad := testMessage()
	bad.Subject = "x\r\nBcc: evil@example.com"
	tests := []struct {
		name string
		env  smtp.Envelope
		msg  *smtp.Message
	}{
		{"bad subject", good.Envelope(), bad},
		{"no recipient", smtp.Envelope{From: testUser}, good},
		{"bracketed from", smtp.Envelope{From: "<a@example.com>", To: []string{"b@example.com"}}, good},
		{"CRLF in recipient", smtp.Envelope{From: testUser, To: []string{"b@example.com\r\nRCPT TO:<c@example.com>"}}, good},
	}
	for _, tt := range tests {
		if _, err := s.Send(ctxTimeout(t, 30*time.Second), tt.env, tt.msg); !errors.Is(err, smtp.ErrInvalidArgument) {
			t.Errorf("%s: Send() = %v, want ErrInvalidArgument", tt.name, err)
		}
	}
	if mails, _ := be.counts(); mails != 0 {
		t.Errorf("server saw %d MAIL commands, want 0", mails)
	}
}

func TestEnvelopeDeduplicates(t *testing.T) {
	be := &backend{}
	port := newTestServer(t, plainServer, be)
	m := testMessage()
	env := smtp.Envelope{From: testUser, To: []string{"bob@example.com", "BOB@example.com", "carol@example.com"}}
	res, err := newSender(port, smtp.SecurityPlain).Send(ctxTimeout(t, 30*time.Second), env, m)
	want := []string{"bob@example.com", "carol@example.com"}
	if err != nil || !slices.Equal(res.Accepted, want) {
		t.Errorf("Send() = %+v, %v; want accepted %v", res, err, want)
	}
}

// TestInternationalAddressNeedsSMTPUTF8: a message with a non-ASCII
// address, in the envelope or only in the header (Reply-To), goes only to a
// server that offers SMTPUTF8, and then with MAIL FROM ... SMTPUTF8
// (RFC 6531 section 3.2); to any other it is refused before MAIL FROM.
func TestInternationalAddressNeedsSMTPUTF8(t *testing.T) {
	tests := []struct {
		name    string
		rcpt    string
		replyTo string
	}{
		{"recipient", "jürgen@example.com", ""},
		{"reply-to only", "bob@example.com", "antwort@bücher.example"},
	}
	for _, tt := range tests {
		m := testMessage()
		m.To = []smtp.Address{{Email: tt.rcpt}}
		if tt.replyTo != "" {
			m.ReplyTo = []smtp.Address{{Email: tt.replyTo}}
		}
		t.Run(tt.name+", not offered", func(t *testing.T) {
			be := &backend{}
			port := newTestServer(t, plainServer, be)
			_, err := newSender(port, smtp.SecurityPlain).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
			var re *smtp.RejectedError
			if n := len(m.Envelope().To); !errors.As(err, &re) || re.Stage != "MAIL" || len(re.Result.Rejected) != n {
				t.Errorf("Send() = %v, want a RejectedError at MAIL for the %d recipients", err, n)
			}
			if mails, _ := be.counts(); mails != 0 {
				t.Errorf("server saw %d MAIL commands, want 0", mails)
			}
		})
		t.Run(tt.name+", offered", func(t *testing.T) {
			be := &backend{smtputf8: true}
			port := newTestServer(t, plainServer, be)
			if _, err := newSender(port, smtp.SecurityPlain).Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m); err != nil {
				t.Fatalf("Send() = %v, want nil", err)
			}
			if got := be.received(); len(got) != 1 || !got[0].UTF8 {
				t.Errorf("server received %+v, want one message sent with SMTPUTF8", got)
			}
		})
	}
}

func TestConcurrentSends(t *testing.T) {
	be := &backend{requireAuth: true}
	port := newTestServer(t, startTLSServer, be)
	s := newSender(port, smtp.SecurityStartTLS)
	const n = 6
	errs := make(chan error, n)
	for range n {
		go func() {
			m := testMessage()
			_, err := s.Send(ctxTimeout(t, 30*time.Second), m.Envelope(), m)
			errs <- err
		}()
	}
	for range n {
		if err := within(t, func() error { return <-errs }); err != nil {
			t.Errorf("Send() = %v, want nil", err)
		}
	}
	if got := len(be.received()); got != n {
		t.Errorf("server received %d messages, want %d", got, n)
	}
}
