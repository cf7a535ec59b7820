package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const key = "e2e-browser-key-0123456789abcdef"

// server is one email-mcp process on its sandbox, on free loopback ports.
type server struct {
	url, smtpAddr string
	loginLink     string // the banner's one-time link
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// binary is E2E_BIN, or the server built from this checkout.
func binary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("E2E_BIN"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "email-mcp")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/email-mcp")
	cmd.Dir = filepath.Join("..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// lockedBuffer collects the server's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var tokenLink = regexp.MustCompile(`http://\S+/ui\?token=[0-9a-f]+`)

func start(t *testing.T) *server {
	t.Helper()
	mcpPort, smtpPort, imapPort := freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(binary(t))
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir, "MCP_API_KEY=" + key,
		fmt.Sprintf("MCP_PORT=%d", mcpPort), "RATE_LIMIT_PER_MINUTE=0",
		fmt.Sprintf("DEV_SMTP_ADDR=127.0.0.1:%d", smtpPort),
		fmt.Sprintf("DEV_IMAP_ADDR=127.0.0.1:%d", imapPort)}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server output:\n%s", out.String())
		}
	})
	s := &server{url: fmt.Sprintf("http://127.0.0.1:%d", mcpPort), smtpAddr: fmt.Sprintf("127.0.0.1:%d", smtpPort)}
	for i := 0; i < 200; i++ { // bounded: 10 s
		if r, err := http.Get(s.url + "/health"); err == nil {
			r.Body.Close()
			if m := tokenLink.FindString(out.String()); r.StatusCode == 200 && m != "" {
				s.loginLink = m
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server did not answer /health and print its login link within 10 s:\n%s", out.String())
	return nil
}

// send delivers a raw message to the sandbox by SMTP.
func (s *server) send(t *testing.T, to string, raw string) {
	t.Helper()
	msg := strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\n", "\r\n")
	// As an app under test does, in plain text on loopback (smtp.SendMail
	// would take the sandbox's STARTTLS and refuse its self-signed
	// certificate).
	c, err := smtp.Dial(s.smtpAddr)
	if err != nil {
		t.Fatalf("SMTP to the sandbox: %v", err)
	}
	defer c.Close()
	w, err := func() (io.WriteCloser, error) {
		if err := c.Hello("localhost"); err != nil {
			return nil, err
		}
		if err := c.Mail("app@example.test"); err != nil {
			return nil, err
		}
		if err := c.Rcpt(to); err != nil {
			return nil, err
		}
		return c.Data()
	}()
	if err == nil {
		_, err = io.WriteString(w, msg)
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = c.Quit()
	}
	if err != nil {
		t.Fatalf("SMTP: %v", err)
	}
}

// call runs a tool over REST with the key, for the checks outside the page.
func (s *server) call(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", s.url+"/mcp/call", bytes.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Structured map[string]any `json:"structuredContent"`
		IsError    bool           `json:"isError"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.IsError {
		t.Fatalf("%s: %v %v", name, err, res.Structured)
	}
	return res.Structured
}

// subjects lists the subjects in folder, through search_emails.
func (s *server) subjects(t *testing.T, folder string) []string {
	t.Helper()
	res := s.call(t, "search_emails", map[string]any{"folder": folder})
	var out []string
	for _, m := range res["messages"].([]any) {
		out = append(out, m.(map[string]any)["subject"].(string))
	}
	return out
}

// recorder is a loopback HTTP server that counts the requests it gets.
type recorder struct {
	mu    sync.Mutex
	paths []string
	srv   *http.Server
	url   string
}

func newRecorder(t *testing.T, page string) *recorder {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{url: "http://" + l.Addr().String()}
	rec.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.paths = append(rec.paths, r.URL.Path)
		rec.mu.Unlock()
		if r.URL.Path == "/page" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, page)
			return
		}
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write(gif1x1)
	})}
	go func() { _ = rec.srv.Serve(l) }()
	t.Cleanup(func() { _ = rec.srv.Close() })
	return rec
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

var gif1x1 = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
