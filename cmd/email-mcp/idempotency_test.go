package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
)

// callResult is a CallToolResult of /mcp/call.
type callResult struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
}

// postCall calls a tool over /mcp/call; it is safe in any goroutine.
func postCall(client *http.Client, base, name string, args map[string]any) (callResult, error) {
	var res callResult
	body, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", bytes.NewReader(body))
	req.Header.Set("X-API-Key", serveKey)
	resp, err := client.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("/mcp/call %s: status %d", name, resp.StatusCode)
	}
	return res, json.NewDecoder(resp.Body).Decode(&res)
}

// sharedAccountEnv starts a devmail server of the test, as the sandbox of
// a first binary would be, and sets the environment of serves over its one
// account, with extra variables.
func sharedAccountEnv(t *testing.T, extra map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mail, err := devmail.Start(ctx, devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Username: "shared", Password: "pw-of-the-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mail.Close() })
	sandboxEnv(t)
	ih, ip, _ := net.SplitHostPort(mail.IMAPAddr())
	sh, sp, _ := net.SplitHostPort(mail.SMTPAddr())
	env := map[string]string{"IMAP_HOST": ih, "IMAP_PORT": ip, "IMAP_SSL": "false", "IMAP_STARTTLS": "false",
		"IMAP_USER": "shared", "IMAP_PASSWORD": "pw-of-the-test", "SMTP_HOST": sh, "SMTP_PORT": sp, "SMTP_STARTTLS": "false",
		"INBOX_ADDRESS": "agent@sandbox.localhost", "MCP_API_KEY": serveKey, "RATE_LIMIT_PER_MINUTE": "0"}
	for k, v := range extra {
		env[k] = v
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// TestIdempotencyTwoProcesses: two `email-mcp serve` processes (children
// of the test, see startProcess) over one account, a devmail server of the
// test, each get send_email with the same idempotency_key at the same
// moment, for several keys: each key delivers exactly one mail, and both
// answers are the first send's result, one of them marked replayed.
func TestIdempotencyTwoProcesses(t *testing.T) {
	sharedAccountEnv(t, map[string]string{"SEND_MAX_PER_HOUR": "0"})
	var bases []string
	for range 2 {
		port := strconv.Itoa(freePort(t))
		t.Setenv("MCP_PORT", port)
		bases = append(bases, "http://127.0.0.1:"+port)
		startProcess(t, bases[len(bases)-1])
	}
	const rounds = 6
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range rounds {
		args := map[string]any{"to": "bob@example.test", "subject": fmt.Sprintf("once %d", i), "body": "b", "idempotency_key": fmt.Sprintf("key-%d", i)}
		answers := make([]callResult, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				answers[p], errs[p] = postCall(client, bases[p], "send_email", args)
			}()
		}
		close(start)
		wg.Wait()
		checkSameAnswer(t, i, answers, errs)
	}
	for i := range rounds {
		res, err := postCall(client, bases[i%2], "search_emails", map[string]any{"subject": fmt.Sprintf("once %d", i)})
		if err != nil || res.IsError || res.StructuredContent["total"] != float64(1) {
			t.Errorf("round %d: INBOX holds %v mails with its subject (err %v, isError %v), want 1", i, res.StructuredContent["total"], err, res.IsError)
		}
	}
}

// checkSameAnswer wants two successful answers of one key that are equal
// but for replayed, which exactly one of them sets.
func checkSameAnswer(t *testing.T, round int, answers []callResult, errs []error) {
	t.Helper()
	replayed := 0
	for p, a := range answers {
		if errs[p] != nil || a.IsError {
			t.Fatalf("round %d, process %d: %v %+v", round, p, errs[p], a)
		}
		if a.StructuredContent["replayed"] == true {
			replayed++
		}
		delete(a.StructuredContent, "replayed")
	}
	if replayed != 1 || !reflect.DeepEqual(answers[0].StructuredContent, answers[1].StructuredContent) {
		t.Errorf("round %d: answers %+v and %+v (%d replayed); want equal, one replayed", round, answers[0].StructuredContent, answers[1].StructuredContent, replayed)
	}
}
