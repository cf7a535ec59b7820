package imap_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

func TestSecurityModes(t *testing.T) {
	tests := []struct {
		name     string
		server   serverMode
		security imap.Security
	}{
		{"plain", modePlain, imap.SecurityPlain},
		{"implicit TLS", modeTLS, imap.SecurityTLS},
		// The STARTTLS server refuses LOGIN before TLS: success proves the
		// upgrade happened first.
		{"STARTTLS required", modeStartTLS, imap.SecurityStartTLS},
		{"STARTTLS optional, offered", modeStartTLS, imap.SecurityStartTLSOptional},
		{"STARTTLS optional, not offered", modePlain, imap.SecurityStartTLSOptional},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.server, nil)
			opts := clientOptions(t, ts.Port, tt.server)
			opts.Security = tt.security
			c := newClient(t, opts)
			for i := range 2 { // the second call reuses (or, optional mode, re-dials as pinned)
				if _, err := c.ListFolders(context.Background(), true); err != nil {
					t.Fatalf("ListFolders() #%d = %v, want nil", i, err)
				}
			}
			if got := ts.loginCount(); got != 1 {
				t.Errorf("server saw %d logins, want 1", got)
			}
		})
	}
}

func TestStartTLSRequiredButNotOffered(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	opts := clientOptions(t, ts.Port, modePlain)
	opts.Security = imap.SecurityStartTLS
	c := newClient(t, opts)
	_, err := c.ListFolders(context.Background(), false)
	if !errors.Is(err, imap.ErrTLS) {
		t.Fatalf("ListFolders() = %v, want ErrTLS", err)
	}
	if n := ts.loginCount(); n != 0 {
		t.Errorf("client sent LOGIN %d times without TLS", n)
	}
}

func TestCertificateVerification(t *testing.T) {
	tests := []struct {
		name   string
		server serverMode
		tls    *tls.Config
		want   error
	}{
		{"implicit TLS, untrusted CA", modeTLS, &tls.Config{RootCAs: x509.NewCertPool()}, imap.ErrTLS},
		{"STARTTLS, untrusted CA", modeStartTLS, &tls.Config{RootCAs: x509.NewCertPool()}, imap.ErrTLS},
		{"implicit TLS, wrong name", modeTLS, &tls.Config{RootCAs: testPKI(t).roots, ServerName: "mail.example.org"}, imap.ErrTLS},
		{"implicit TLS, trusted CA", modeTLS, &tls.Config{RootCAs: testPKI(t).roots}, nil},
		{"STARTTLS, trusted CA", modeStartTLS, &tls.Config{RootCAs: testPKI(t).roots}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.server, nil)
			opts := clientOptions(t, ts.Port, tt.server)
			opts.TLSConfig = tt.tls
			c := newClient(t, opts)
			err := c.Noop(context.Background())
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Noop() = %v, want %v", err, tt.want)
			}
			if tt.want != nil && ts.loginCount() != 0 {
				t.Errorf("credentials were sent over a connection that failed verification")
			}
			noPassword(t, err)
		})
	}
}

func TestImplicitTLSAgainstPlaintextPort(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	opts := clientOptions(t, ts.Port, modeTLS)
	c := newClient(t, opts)
	err := within(t, 20*time.Second, func() error { return c.Noop(context.Background()) })
	if !errors.Is(err, imap.ErrTLS) {
		t.Fatalf("Noop() = %v, want ErrTLS", err)
	}
}

func TestWrongPassword(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	opts := clientOptions(t, ts.Port, modePlain)
	opts.Password = "wrong-" + testPassword
	c := newClient(t, opts)
	_, err := c.ListFolders(context.Background(), false)
	if !errors.Is(err, imap.ErrAuthFailed) {
		t.Fatalf("ListFolders() = %v, want ErrAuthFailed", err)
	}
	if n := ts.loginCount(); n != 1 {
		t.Errorf("server saw %d logins for one call, want 1 (no retry)", n)
	}
	if st := c.Stats(); st.Dials != 1 || st.Open != 0 {
		t.Errorf("Stats() = %+v, want 1 dial and nothing open", st)
	}
	// A second call right away fails the same way, whether from the
	// backoff or from a new attempt.
	_, err = c.ListFolders(context.Background(), false)
	if !errors.Is(err, imap.ErrAuthFailed) {
		t.Errorf("second ListFolders() = %v, want ErrAuthFailed", err)
	}
	if n := ts.loginCount(); n > 2 {
		t.Errorf("server saw %d logins for two calls", n)
	}
	if errors.Is(err, imap.ErrConnection) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("auth failure %v also carries a connection or timeout kind", err)
	}
}

func TestDeadPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	for _, mode := range []serverMode{modePlain, modeStartTLS, modeTLS} {
		c := newClient(t, clientOptions(t, port, mode))
		err := within(t, 20*time.Second, func() error { return c.Noop(context.Background()) })
		if !errors.Is(err, imap.ErrConnection) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v: Noop() = %v, want ErrConnection and no timeout", mode.security(), err)
		}
		if st := c.Stats(); st.Dials != 1 {
			t.Errorf("%v: Stats().Dials = %d, want 1 (no retry within the call)", mode.security(), st.Dials)
		}
	}
}

func TestSilentServer(t *testing.T) {
	port := silentServer(t)
	tests := []struct {
		name     string
		security imap.Security
		ctx      bool // deadline from ctx (else from CommandTimeout/DialTimeout)
	}{
		{"plain, ctx deadline", imap.SecurityPlain, true},
		{"plain, command timeout", imap.SecurityPlain, false},
		{"TLS handshake, ctx deadline", imap.SecurityTLS, true},
		{"TLS handshake, dial timeout", imap.SecurityTLS, false},
		{"STARTTLS, ctx deadline", imap.SecurityStartTLS, true},
		{"STARTTLS optional, command timeout", imap.SecurityStartTLSOptional, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := clientOptions(t, port, modePlain)
			opts.Security = tt.security
			ctx := context.Background()
			if tt.ctx {
				ctx = ctxTimeout(t, 300*time.Millisecond)
			} else {
				opts.CommandTimeout, opts.DialTimeout = 300*time.Millisecond, 300*time.Millisecond
			}
			c := newClient(t, opts)
			err := within(t, 20*time.Second, func() error { _, err := c.ListFolders(ctx, false); return err })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("ListFolders() = %v, want context.DeadlineExceeded in the chain", err)
			}
			if errors.Is(err, imap.ErrConnection) || errors.Is(err, imap.ErrTLS) {
				t.Errorf("timeout %v also carries a connection or TLS kind", err)
			}
			if st := c.Stats(); st.Open != 0 {
				t.Errorf("Stats().Open = %d after a failed dial, want 0", st.Open)
			}
		})
	}
}

func TestHangMidCommand(t *testing.T) {
	seen := make(chan string, 16)
	port := scriptedServer(t, seen)
	opts := clientOptions(t, port, modePlain)
	opts.Password = "pw" // the scripted server reads lines: no literal

	t.Run("command timeout", func(t *testing.T) {
		opts := opts
		opts.CommandTimeout = 300 * time.Millisecond
		c := newClient(t, opts)
		err := within(t, 20*time.Second, func() error { _, err := c.ListFolders(context.Background(), false); return err })
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ListFolders() = %v, want both deadline errors in the chain", err)
		}
		if st := c.Stats(); st.Open != 0 || st.Discards != 1 {
			t.Errorf("Stats() = %+v, want the cut-off connection discarded", st)
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		c := newClient(t, opts)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-seen: // the server has the LIST: cancel while it is pending
			case <-time.After(10 * time.Second):
			}
			cancel()
		}()
		err := within(t, 20*time.Second, func() error { _, err := c.ListFolders(ctx, false); return err })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ListFolders() = %v, want context.Canceled", err)
		}
		if st := c.Stats(); st.Open != 0 {
			t.Errorf("Stats() = %+v, want the cancelled connection discarded", st)
		}
	})
}
