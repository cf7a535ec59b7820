package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// syncBuffer is a bytes.Buffer safe for the writer goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// sandboxEnv clears any mail configuration of the developer's shell and
// points the sandbox at free ports.
func sandboxEnv(t *testing.T) (mcpPort, smtpPort int) {
	t.Helper()
	for _, k := range []string{"IMAP_HOST", "SMTP_HOST", "MCP_API_KEY", "EMAIL_DATA_DIR", "MCP_BASE_URL", "MCP_READ_ONLY", "MCP_TOOLSETS"} {
		t.Setenv(k, "")
	}
	mcpPort, smtpPort = freePort(t), freePort(t)
	t.Setenv("MCP_PORT", strconv.Itoa(mcpPort))
	t.Setenv("DEV_SMTP_ADDR", "127.0.0.1:"+strconv.Itoa(smtpPort))
	t.Setenv("DEV_IMAP_ADDR", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	return mcpPort, smtpPort
}

func TestVersionAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version"}, nil, &out, &errb); code != exitOK || !strings.HasPrefix(out.String(), "email-mcp ") {
		t.Errorf("version = %d %q", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"frobnicate"}, nil, &out, &errb); code != exitConfig || !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Errorf("unknown command = %d %q", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"serve", "--env-file", "/nonexistent/.env"}, nil, &out, &errb); code != exitConfig || !strings.Contains(errb.String(), "/nonexistent/.env") {
		t.Errorf("missing --env-file = %d %q", code, errb.String())
	}
}

func TestBadConfigNamesEveryVariable(t *testing.T) {
	sandboxEnv(t)
	t.Setenv("IMAP_PORT", "abc")
	t.Setenv("MCP_TOOLSETS", "mail,bogus")
	t.Setenv("LOG_LEVEL", "loud")
	var out, errb bytes.Buffer
	code := run(context.Background(), nil, nil, &out, &errb)
	if code != exitConfig {
		t.Fatalf("exit = %d, want %d", code, exitConfig)
	}
	for _, v := range []string{"IMAP_PORT", "MCP_TOOLSETS", "LOG_LEVEL"} {
		if !strings.Contains(errb.String(), "\n  "+v+":") {
			t.Errorf("stderr does not name %s on its own line:\n%s", v, errb.String())
		}
	}
}

func TestRealAccountNeedsAPIKey(t *testing.T) {
	sandboxEnv(t)
	t.Setenv("IMAP_HOST", "imap.example.com")
	t.Setenv("IMAP_USER", "me@example.com")
	t.Setenv("IMAP_PASSWORD", "hunter2-secret")
	t.Setenv("SMTP_HOST", "smtp.example.com")
	var out, errb bytes.Buffer
	if code := run(context.Background(), nil, nil, &out, &errb); code != exitConfig || !strings.Contains(errb.String(), "MCP_API_KEY") {
		t.Errorf("serve without key = %d %q, want exit 2 naming MCP_API_KEY", code, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), "hunter2") {
		t.Error("the password was printed")
	}
}

// serving is a running `email-mcp serve` inside the test process.
type serving struct {
	base     string
	smtpAddr string
	out, log *syncBuffer
	cancel   context.CancelFunc
	done     chan int
}

const serveKey = "serve-test-key-0123456789"

func startServe(t *testing.T) *serving {
	t.Helper()
	sandboxEnv(t)
	t.Setenv("MCP_API_KEY", serveKey)
	return startServeKeepEnv(t)
}

// stop sends the equivalent of SIGTERM and wants exit status 0.
func (s *serving) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		if code != exitOK {
			t.Errorf("exit after SIGTERM = %d, want 0; log:\n%s", code, s.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
}

// inboxCount calls list_folders through /mcp/call and returns INBOX's count.
func (s *serving) inboxCount(t *testing.T) int {
	t.Helper()
	body := `{"method":"tools/call","params":{"name":"list_folders","arguments":{"include_counts":true}}}`
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp/call", strings.NewReader(body))
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Folders []struct {
				Name     string `json:"name"`
				Messages *int   `json:"messages"`
			} `json:"folders"`
		} `json:"structuredContent"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.IsError {
		t.Fatalf("/mcp/call list_folders: %v %+v", err, res)
	}
	for _, f := range res.StructuredContent.Folders {
		if f.Name == "INBOX" && f.Messages != nil {
			return *f.Messages
		}
	}
	t.Fatalf("no INBOX count in %+v", res)
	return 0
}

// TestServeSandbox runs the binary's serve path with no mail configuration:
// the sandbox starts, a mail sent to its SMTP port is counted by list_folders
// through /mcp/call, and cancelling (SIGTERM) exits 0.
func TestServeSandbox(t *testing.T) {
	s := startServe(t)
	sendTestMail(t, s.smtpAddr)
	if n := s.inboxCount(t); n != 1 {
		t.Errorf("INBOX messages = %d, want 1", n)
	}
	if strings.Contains(s.out.String()+s.log.String(), serveKey) {
		t.Error("a configured API key was printed")
	}
	if !strings.Contains(s.out.String(), s.base[len("http://127.0.0.1"):]+"/mcp") {
		t.Errorf("banner lacks the MCP URL:\n%s", s.out.String())
	}
	s.stop(t)
}

// TestSandboxDataDirSurvivesRestart: with EMAIL_DATA_DIR, received mail is
// still there after the binary is stopped and started again.
func TestSandboxDataDirSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t)
	s.stop(t) // the first run had no data dir: nothing to keep
	t.Setenv("EMAIL_DATA_DIR", dir)
	t.Setenv("MCP_PORT", strconv.Itoa(freePort(t)))
	s = startServeKeepEnv(t)
	sendTestMail(t, s.smtpAddr)
	sendTestMail(t, s.smtpAddr)
	s.stop(t)
	s = startServeKeepEnv(t)
	if n := s.inboxCount(t); n != 2 {
		t.Errorf("INBOX after restart = %d, want 2", n)
	}
	s.stop(t)
}

// startServeKeepEnv starts serve with the environment as it is.
func startServeKeepEnv(t *testing.T) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	port := os.Getenv("MCP_PORT")
	smtpAddr := os.Getenv("DEV_SMTP_ADDR")
	s := &serving{base: "http://127.0.0.1:" + port, smtpAddr: smtpAddr,
		out: &syncBuffer{}, log: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() { s.done <- run(ctx, []string{"serve"}, nil, s.out, s.log) }()
	t.Cleanup(cancel)
	waitHealthy(t, s.base, s.done, s.log)
	return s
}

func waitHealthy(t *testing.T, base string, done chan int, errb *syncBuffer) {
	t.Helper()
	for range 200 {
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d:\n%s", code, errb.String())
		default:
		}
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server not healthy:\n%s", errb.String())
}

func sendTestMail(t *testing.T, addr string) {
	t.Helper()
	c, err := gosmtp.Dial(addr)
	if err != nil {
		t.Fatalf("smtp dial: %v", err)
	}
	defer c.Close()
	msg := "From: app@example.test\r\nTo: agent@example.test\r\nSubject: hi\r\n\r\ncode 123456\r\n"
	if err := c.SendMail("app@example.test", []string{"agent@example.test"}, strings.NewReader(msg)); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
}

// TestStdio drives `email-mcp stdio` through pipes: every stdout line is a
// JSON-RPC message, tools/list answers, and EOF on stdin exits 0.
func TestStdio(t *testing.T) {
	sandboxEnv(t)
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n")
	var out, errb syncBuffer
	code := run(context.Background(), []string{"stdio"}, in, &out, &errb)
	if code != exitOK {
		t.Fatalf("stdio exit = %d; log:\n%s", code, errb.String())
	}
	ids := map[float64]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var msg struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		ids[msg.ID] = true
		if msg.ID == 2 && !strings.Contains(string(msg.Result), `"list_folders"`) {
			t.Errorf("tools/list = %s", msg.Result)
		}
	}
	if !ids[1] || !ids[2] {
		t.Errorf("stdout lacks responses 1 and 2:\n%s", out.String())
	}
}

// TestShutdownDrainsSSECall: DESIGN.md, "Graceful shutdown on SIGTERM
// drains in-flight calls". A tools/call accepted on the legacy SSE transport
// (202) before SIGTERM, which finishes well within the drain time, must get
// its answer on the stream before the stream ends.
func TestShutdownDrainsSSECall(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	s := startServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/sse", nil)
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(want string) string { // the next data line containing want
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return ""
				}
				if strings.HasPrefix(l, "data:") && strings.Contains(l, want) {
					return strings.TrimSpace(strings.TrimPrefix(l, "data:"))
				}
			case <-ctx.Done():
				return ""
			}
		}
	}
	endpoint := next("sessionId=")
	if endpoint == "" {
		t.Fatal("no endpoint event")
	}
	post := func(body string) int {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+endpoint, strings.NewReader(body))
		r.Header.Set("X-API-Key", serveKey)
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if next(`"id":1`) == "" {
		t.Fatal("no initialize answer")
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_inbox","arguments":{}}}`)
	created := next(`"id":2`)
	_, after, _ := strings.Cut(created, `inbox_id\":\"`)
	inbox, _, _ := strings.Cut(after, `\"`)
	if inbox == "" {
		t.Fatalf("create_inbox = %.300s", created)
	}
	if status := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_for_email","arguments":{"inbox_id":"` + inbox + `","timeout":2}}}`); status != http.StatusAccepted {
		t.Fatalf("POST wait_for_email = %d, want 202", status)
	}
	s.cancel() // SIGTERM while the call is in flight
	answer := next(`"id":3`)
	if code := <-s.done; code != exitOK {
		t.Errorf("exit = %d", code)
	}
	if answer == "" {
		t.Errorf("the SSE stream ended at SIGTERM without the answer to the in-flight call (wait_for_email, 2 s; drain time %s)", shutdownTimeout)
	}
}

// TestUnusableEmailBaseDirIsConfigError: DESIGN.md, "Exit status 2 for bad
// configuration, with one line per bad or missing variable, naming it"; the
// systemd unit relies on it (RestartPreventExitStatus=2: "a configuration
// error: restarting will not fix it"). An EMAIL_BASE_DIR that is a regular
// file can never become a workspace, yet serve and stdio exit 1 with a log
// line, so systemd restarts the service every 5 s forever.
func TestUnusableEmailBaseDirIsConfigError(t *testing.T) {
	for _, cmd := range []string{"serve", "stdio"} {
		t.Run(cmd, func(t *testing.T) {
			sandboxEnv(t)
			file := filepath.Join(t.TempDir(), "not-a-dir")
			if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("EMAIL_BASE_DIR", file)
			var out, errb syncBuffer
			code := run(context.Background(), []string{cmd}, strings.NewReader(""), &out, &errb)
			if code != exitConfig || !strings.Contains(errb.String(), "\n  EMAIL_BASE_DIR:") {
				t.Errorf("%s with EMAIL_BASE_DIR=<a regular file>: exit %d, stderr:\n%s\nwant exit %d and a line \"  EMAIL_BASE_DIR: …\"",
					cmd, code, errb.String(), exitConfig)
			}
		})
	}
}
