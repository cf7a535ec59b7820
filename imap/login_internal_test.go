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

// TestStrippedStartTLSNoPlaintextLogin: with IMAP_STARTTLS=none
// (SecurityStartTLSOptional) to a peer that is not loopback, an attacker on
// the path removes STARTTLS from the greeting. LOGIN (the password) then
// went out in clear text; it is refused with ErrTLS unless
// AllowPlainLogin (IMAP_ALLOW_PLAINTEXT) says otherwise, as SMTP refuses
// the same case with ErrInsecureAuth. The connection is a net.Pipe: its
// peer is no loopback address.
func TestStrippedStartTLSNoPlaintextLogin(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("AllowPlainLogin=%v", allow), func(t *testing.T) {
			strippedLogin(t, allow)
		})
	}
}

func strippedLogin(t *testing.T, allow bool) {
	const pass = "plaintext-secret"
	c := New(Options{
		Host: "imap.example.com", Port: 143,
		Username: "alice@example.com", Password: pass,
		Security:        SecurityStartTLSOptional,
		AllowPlainLogin: allow,
		CommandTimeout:  10 * time.Second,
	})
	defer c.Close()

	cli, srv := net.Pipe()
	sawLogin := make(chan string, 1)
	done := make(chan struct{})
	go func() { // the attacker: a greeting without STARTTLS, accepts LOGIN
		defer close(done)
		defer srv.Close()
		fmt.Fprintf(srv, "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] ready\r\n")
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
			switch strings.ToUpper(f[1]) {
			case "LOGIN":
				select {
				case sawLogin <- line:
				default:
				}
				fmt.Fprintf(srv, "%s OK [CAPABILITY IMAP4rev1] logged in\r\n", f[0])
			case "CAPABILITY":
				fmt.Fprintf(srv, "* CAPABILITY IMAP4rev1\r\n%s OK done\r\n", f[0])
			case "LOGOUT":
				fmt.Fprintf(srv, "* BYE\r\n%s OK bye\r\n", f[0])
				return
			default:
				fmt.Fprintf(srv, "%s BAD no\r\n", f[0])
			}
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cn := newConn(cli, false) // what probe makes after dialTCP
	if err := c.greeting(ctx, cn, nil); err != nil {
		t.Fatalf("greeting() = %v", err)
	}
	if cn.caps.Has("STARTTLS") {
		t.Fatal("test server offered STARTTLS")
	}
	err := c.login(ctx, cn, nil) // what connect does next for the plaintext conn of openOptional
	cn.close()
	_ = srv.Close()
	<-done

	var line string
	select {
	case line = <-sawLogin:
	default:
	}
	if allow {
		if err != nil || line == "" {
			t.Errorf("login() with AllowPlainLogin = %v (LOGIN sent: %v), want the login to go through", err, line != "")
		}
		return
	}
	if line != "" {
		t.Errorf("LOGIN sent in clear text to a peer that is not loopback after STARTTLS was stripped (login() = %v); wire: %q",
			err, strings.TrimSpace(line))
	}
	if !errors.Is(err, ErrTLS) {
		t.Errorf("login() = %v, want an ErrTLS refusal", err)
	}
}
