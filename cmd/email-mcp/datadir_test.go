package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// runMainEnv makes the test binary run main() with "serve" (see TestMain),
// so a test can SIGKILL a real email-mcp process.
const runMainEnv = "EMAIL_MCP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Args = []string{os.Args[0], "serve"}
		main()
	}
	os.Exit(m.Run())
}

// startProcess runs `email-mcp serve` in a child process with the test's
// environment and waits until /health answers.
func startProcess(t *testing.T, base string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for range 200 {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return cmd
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("email-mcp not healthy:\n%s", stderr.String())
	return nil
}

// callTool calls a tool over /mcp/call and returns its structuredContent.
func callTool(t *testing.T, base, name, args string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args)
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", strings.NewReader(body))
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("/mcp/call %s: %v", name, err)
	}
	defer resp.Body.Close()
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.IsError {
		t.Fatalf("/mcp/call %s %s = %v %+v", name, args, err, res)
	}
	return res.StructuredContent
}

// TestSandboxDataDirKeepsIDs: an id that search_emails gave before the
// process was killed (SIGKILL, deliveries under way) or stopped (SIGTERM)
// still reads the same message after it starts again, and the folder keeps
// its UIDVALIDITY (the issue saw 1 -> 8 -> 15 over two restarts).
func TestSandboxDataDirKeepsIDs(t *testing.T) {
	mcpPort, _ := sandboxEnv(t)
	t.Setenv("MCP_API_KEY", serveKey)
	t.Setenv("EMAIL_DATA_DIR", t.TempDir())
	base := fmt.Sprintf("http://127.0.0.1:%d", mcpPort)
	smtpAddr := os.Getenv("DEV_SMTP_ADDR")

	cmd := startProcess(t, base)
	sendTestMail(t, smtpAddr)
	found := callTool(t, base, "search_emails", `{"folder":"INBOX"}`)
	validity := found["uidvalidity"]
	id := found["messages"].([]any)[0].(map[string]any)["id"].(string)
	var acked atomic.Int32
	sending := make(chan int)
	go func() { // deliveries under way when the process dies
		for range 500 {
			if sendMail(smtpAddr) != nil {
				break
			}
			acked.Add(1)
		}
		sending <- int(acked.Load())
	}()
	for i := 0; i < 1000 && acked.Load() < 10; i++ { // bounded wait for some deliveries
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	delivered := <-sending
	for i, stop := range []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM} {
		cmd = startProcess(t, base)
		read := callTool(t, base, "read_email", fmt.Sprintf(`{"uid":%q}`, id))
		if read["subject"] != "hi" || read["id"] != id {
			t.Errorf("start %d: read_email(%s) = %v, want the same message", i+2, id, read)
		}
		again := callTool(t, base, "search_emails", `{"folder":"INBOX","limit":200}`)
		if again["uidvalidity"] != validity {
			t.Errorf("start %d: INBOX UIDVALIDITY = %v, want %v", i+2, again["uidvalidity"], validity)
		}
		if n := len(again["messages"].([]any)); n < 1+delivered {
			t.Errorf("start %d: INBOX holds %d messages, want at least %d (every acknowledged one)", i+2, n, 1+delivered)
		}
		if err := cmd.Process.Signal(stop); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("exit after SIGTERM = %v, want 0", err)
		}
	}
}

func sendMail(addr string) error {
	c, err := gosmtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	msg := "From: app@example.test\r\nTo: agent@example.test\r\nSubject: more\r\n\r\nx\r\n"
	return c.SendMail("app@example.test", []string{"agent@example.test"}, strings.NewReader(msg))
}
