package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/config"
)

const (
	canaryPassword = "S3CRET-canary-123"
	canaryAPIKey   = "emcp_canary0123456789abcdef"
	canaryUser     = "agent@example.com"
)

// echoForbidden is every form of the secrets that must never show: the
// password, the key, and the base64 forms that SMTP AUTH puts on the wire.
func echoForbidden() []string {
	b64 := base64.StdEncoding.EncodeToString
	return []string{
		canaryPassword, canaryAPIKey,
		b64([]byte(canaryPassword)),                                // AUTH LOGIN password line
		b64([]byte("\x00" + canaryUser + "\x00" + canaryPassword)), // AUTH PLAIN initial response
	}
}

func assertNoCanary(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range echoForbidden() {
		if strings.Contains(out, s) {
			t.Errorf("%s shows secret %q:\n%s", what, s, out)
		}
	}
}

// serveEcho accepts connections on a loopback listener and runs handle on each
// until the test ends.
func serveEcho(t *testing.T, handle func(net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(30 * time.Second))
				handle(c)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// echoIMAP is an IMAP server whose LOGIN refusal quotes the command it got
// (as some servers and proxies quote a command they could not process).
func echoIMAP(c net.Conn) {
	r := bufio.NewReader(c)
	io.WriteString(c, "* OK [CAPABILITY IMAP4rev1] fake ready\r\n")
	for range 50 {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		// A literal: ask for it and append it to the line.
		for strings.HasSuffix(line, "}") {
			i := strings.LastIndexByte(line, '{')
			n, _ := strconv.Atoi(strings.TrimSuffix(line[i+1:len(line)-1], "+"))
			if !strings.HasSuffix(line, "+}") {
				io.WriteString(c, "+ go ahead\r\n")
			}
			buf := make([]byte, n)
			if _, err := io.ReadFull(r, buf); err != nil {
				return
			}
			rest, _ := r.ReadString('\n')
			line = line[:i] + string(buf) + strings.TrimRight(rest, "\r\n")
		}
		tag, cmd, _ := strings.Cut(line, " ")
		verb, _, _ := strings.Cut(cmd, " ")
		switch strings.ToUpper(verb) {
		case "CAPABILITY":
			io.WriteString(c, "* CAPABILITY IMAP4rev1\r\n"+tag+" OK done\r\n")
		case "LOGIN":
			io.WriteString(c, tag+" NO [AUTHENTICATIONFAILED] Authentication failed for command: "+cmd+"\r\n")
		case "LOGOUT":
			io.WriteString(c, "* BYE bye\r\n"+tag+" OK done\r\n")
			return
		default:
			io.WriteString(c, tag+" BAD unknown\r\n")
		}
	}
}

// echoSMTP is an SMTP server whose AUTH refusal quotes the line it got.
func echoSMTP(mechs string) func(net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		io.WriteString(c, "220 fake ESMTP\r\n")
		for range 50 {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			verb, _, _ := strings.Cut(line, " ")
			switch strings.ToUpper(verb) {
			case "EHLO":
				io.WriteString(c, "250-fake\r\n250-AUTH "+mechs+"\r\n250 8BITMIME\r\n")
			case "AUTH":
				if strings.EqualFold(strings.TrimSpace(line), "AUTH LOGIN") {
					io.WriteString(c, "334 VXNlcm5hbWU6\r\n")
					u, _ := r.ReadString('\n')
					_ = u
					io.WriteString(c, "334 UGFzc3dvcmQ6\r\n")
					p, _ := r.ReadString('\n')
					io.WriteString(c, "535 5.7.8 Authentication credentials invalid: "+strings.TrimRight(p, "\r\n")+"\r\n")
					continue
				}
				io.WriteString(c, "535 5.7.8 Authentication failed: "+line+"\r\n")
			case "QUIT":
				io.WriteString(c, "221 bye\r\n")
				return
			default:
				io.WriteString(c, "502 5.5.2 unknown\r\n")
			}
		}
	}
}

// echoAccountEnv points the configuration at the fake servers.
func echoAccountEnv(t *testing.T, imapPort, smtpPort int) string {
	t.Helper()
	for _, k := range config.Names() {
		t.Setenv(k, "")
	}
	set := map[string]string{
		"IMAP_HOST": "127.0.0.1", "IMAP_PORT": strconv.Itoa(imapPort), "IMAP_SSL": "false", "IMAP_STARTTLS": "false",
		"IMAP_USER": canaryUser, "IMAP_PASSWORD": canaryPassword,
		"SMTP_HOST": "127.0.0.1", "SMTP_PORT": strconv.Itoa(smtpPort), "SMTP_STARTTLS": "false",
		"MCP_API_KEY": canaryAPIKey, "MCP_PORT": strconv.Itoa(freePort(t)), "LOG_LEVEL": "debug",
		"RATE_LIMIT_PER_MINUTE": "0",
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
	env := filepath.Join(t.TempDir(), "empty.env")
	if err := os.WriteFile(env, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestCheckHidesEchoedCredentials: `email-mcp check` against servers that
// quote the refused AUTH/LOGIN command prints the password.
func TestCheckHidesEchoedCredentials(t *testing.T) {
	for _, mechs := range []string{"PLAIN", "LOGIN"} {
		t.Run("SMTP AUTH "+mechs, func(t *testing.T) {
			env := echoAccountEnv(t, serveEcho(t, echoIMAP), serveEcho(t, echoSMTP(mechs)))
			var out, errb syncBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			code := run(ctx, []string{"check", "--env-file", env}, nil, &out, &errb)
			if code != exitFailure {
				t.Errorf("check exit = %d, want %d", code, exitFailure)
			}
			assertNoCanary(t, "check stdout", out.String())
			assertNoCanary(t, "check stderr (log)", errb.String())
		})
	}
}

// TestServeHidesEchoedCredentials: `email-mcp serve` with the same servers:
// a tool call and /ready, then the log, the tool result and /ready's answer.
func TestServeHidesEchoedCredentials(t *testing.T) {
	env := echoAccountEnv(t, serveEcho(t, echoIMAP), serveEcho(t, echoSMTP("PLAIN")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, logb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--env-file", env}, nil, out, logb) }()
	base := "http://127.0.0.1:" + os.Getenv("MCP_PORT")
	waitHealthy(t, base, done, logb)

	call := func(name, args string) string {
		body := `{"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", strings.NewReader(body))
		req.Header.Set("X-API-Key", canaryAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	assertNoCanary(t, "list_folders result", call("list_folders", `{}`))
	assertNoCanary(t, "send_email result", call("send_email", `{"to":["x@example.org"],"subject":"s","body":"b"}`))
	resp, err := http.Get(base + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assertNoCanary(t, "/ready", string(b))

	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	assertNoCanary(t, "serve stdout", out.String())
	assertNoCanary(t, "serve log", logb.String())
}
