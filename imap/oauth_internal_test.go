package imap

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

// TestTokenNeverInClearText: an OAuth token follows the password's TLS
// rule. With IMAP_STARTTLS=none to a peer that is not loopback and
// STARTTLS stripped from the greeting, no AUTHENTICATE is sent and the
// login fails with ErrTLS. (net.Pipe: its peer is no loopback address.)
func TestTokenNeverInClearText(t *testing.T) {
	c := New(Options{
		Host: "imap.example.com", Port: 143, Username: "alice@example.com",
		Token: fixedToken("secret-access-token"), Security: SecurityStartTLSOptional,
		CommandTimeout: 10 * time.Second,
	})
	defer c.Close()
	cli, srv := net.Pipe()
	sawAuth := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer srv.Close()
		fmt.Fprintf(srv, "* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2 AUTH=OAUTHBEARER] ready\r\n")
		r := bufio.NewReader(srv)
		for range 20 {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			if strings.EqualFold(f[1], "AUTHENTICATE") {
				select {
				case sawAuth <- line:
				default:
				}
			}
			fmt.Fprintf(srv, "%s OK done\r\n", f[0])
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cn := newConn(cli, false)
	if err := c.greeting(ctx, cn, nil); err != nil {
		t.Fatalf("greeting() = %v", err)
	}
	err := c.login(ctx, cn, nil)
	cn.close()
	_ = srv.Close()
	<-done
	select {
	case line := <-sawAuth:
		t.Errorf("AUTHENTICATE sent in clear text to a peer that is not loopback: %q", strings.TrimSpace(line))
	default:
	}
	if !errors.Is(err, ErrTLS) {
		t.Errorf("login() = %v, want an ErrTLS refusal", err)
	}
}
