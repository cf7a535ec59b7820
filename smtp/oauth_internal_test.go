package smtp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

type fixedToken string

func (f fixedToken) Token(context.Context) (string, error) { return string(f), nil }
func (fixedToken) Refused(string)                          {}

// TestTokenNeverInClearText: an OAuth token follows the password's rule:
// over a plaintext session to a host that is not loopback, no AUTH is
// sent and the result is ErrInsecureAuth. (net.Pipe: no TCP peer, so the
// configured host, smtp.example.com, decides.)
func TestTokenNeverInClearText(t *testing.T) {
	s := New(Options{Host: "smtp.example.com", Username: "agent@example.com", Token: fixedToken("secret-access-token"),
		Security: SecurityStartTLSOptional, CommandTimeout: 10 * time.Second})
	cli, srv := net.Pipe()
	sawAuth := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer srv.Close()
		fmt.Fprintf(srv, "220 smtp.example.com ESMTP\r\n")
		r := bufio.NewReader(srv)
		for range 20 {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch f := strings.Fields(strings.ToUpper(line)); {
			case len(f) > 0 && f[0] == "EHLO":
				fmt.Fprintf(srv, "250-smtp.example.com\r\n250 AUTH XOAUTH2 OAUTHBEARER\r\n")
			case len(f) > 0 && f[0] == "AUTH":
				select {
				case sawAuth <- line:
				default:
				}
				fmt.Fprintf(srv, "235 ok\r\n")
			default:
				fmt.Fprintf(srv, "250 ok\r\n")
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, stop := newDeadlineConn(ctx, cli)
	ss := &session{s: s, ctx: ctx, raw: raw, stop: stop}
	ss.c = s.newClient(raw)
	if _, err := ss.ready("plaintext"); err != nil {
		t.Fatalf("ready() = %v", err)
	}
	err := ss.authenticate()
	ss.close()
	<-done
	select {
	case line := <-sawAuth:
		t.Errorf("AUTH sent over plaintext to a host that is not loopback: %q", strings.TrimSpace(line))
	default:
	}
	if !errors.Is(err, ErrInsecureAuth) {
		t.Errorf("authenticate() = %v, want ErrInsecureAuth", err)
	}
}
