package devmail_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2/imapclient"
	gosmtp "github.com/emersion/go-smtp"
)

func TestStartRefusesBadOptions(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	defer busy.Close()
	tests := []struct {
		name    string
		opts    devmail.Options
		wantErr error
	}{
		{"no password", devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0"}, devmail.ErrInvalidOptions},
		{"negative size", devmail.Options{Password: "p", IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", MaxMessageBytes: -1}, devmail.ErrInvalidOptions},
		{"IMAP port taken", devmail.Options{Password: "p", IMAPAddr: busy.Addr().String(), SMTPAddr: "127.0.0.1:0"}, nil},
		{"SMTP port taken", devmail.Options{Password: "p", IMAPAddr: "127.0.0.1:0", SMTPAddr: busy.Addr().String()}, nil},
		{"data dir is a file", devmail.Options{Password: "p", IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: "/dev/null"}, devmail.ErrStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := devmail.Start(context.Background(), tt.opts)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Start() = nil error, want one")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Start() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// Close ends every goroutine the server started, with clients still
// connected (one of them idling), and is idempotent.
func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := devmail.Start(context.Background(), devmail.Options{
		IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Password: testPassword, DataDir: t.TempDir(),
	})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	idler, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		t.Fatalf("DialInsecure() = %v", err)
	}
	if err := idler.Login(s.Username(), testPassword).Wait(); err != nil {
		t.Fatalf("Login() = %v", err)
	}
	if _, err := idler.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	if _, err := idler.Idle(); err != nil {
		t.Fatalf("Idle() = %v", err)
	}
	mailer, err := gosmtp.Dial(s.SMTPAddr())
	if err != nil {
		t.Fatalf("smtp Dial() = %v", err)
	}
	if err := mailer.Hello("client.test"); err != nil {
		t.Fatalf("Hello() = %v", err)
	}
	if err := s.Deliver(context.Background(), []byte(message("x", "a@x.test", "y")), nil); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	eventually(t, "idle connection counted", func() bool { return s.IMAPConnections() == 1 })

	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	select {
	case <-idler.Closed():
	case <-timeAfter(t):
		t.Fatalf("IMAP client still connected after Close")
	}
	_ = idler.Close()
	_ = mailer.Close()
	if n := s.IMAPConnections(); n != 0 {
		t.Errorf("IMAPConnections() = %d after Close, want 0", n)
	}
	eventually(t, "goroutines back to the count before Start", func() bool {
		return runtime.NumGoroutine() <= before
	})
}

// errors.go: ErrInvalidOptions means Start was given options it cannot run
// with ("no password, an address that does not parse, a negative size").
func TestBadAddressIsInvalidOptions(t *testing.T) {
	for _, addr := range []string{"no-port-here", "127.0.0.1:99999"} {
		s, err := devmail.Start(context.Background(), devmail.Options{Password: "p", IMAPAddr: addr, SMTPAddr: "127.0.0.1:0"})
		if err == nil {
			_ = s.Close()
			t.Fatalf("Start(IMAPAddr %q) = nil error", addr)
		}
		if !errors.Is(err, devmail.ErrInvalidOptions) {
			t.Errorf("Start(IMAPAddr %q) = %v, want it to match ErrInvalidOptions", addr, err)
		}
	}
}
