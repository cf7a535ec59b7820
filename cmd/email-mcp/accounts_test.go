package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// Keys of TestTwoAccountsServe: MCP_API_KEY may use every account, the
// others one each.
const (
	workKey = "key-of-work-0123456789"
	homeKey = "key-of-home-0123456789"
)

// callAs runs a tool through /mcp/call with key; it returns the error code
// ("" on success) and the structuredContent.
func callAs(t *testing.T, base, key, name string, args map[string]any) (string, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", strings.NewReader(string(b)))
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	var res struct {
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatalf("%s: HTTP %d: %v", name, resp.StatusCode, err)
	}
	if res.IsError {
		e, _ := res.Structured["error"].(map[string]any)
		return fmt.Sprint(e["code"]), res.Structured
	}
	return "", res.Structured
}

// accountUnderTest is one named account of the test: its IMAP (in-process
// devmail, or a Dovecot user on the tier) behind a counting proxy, and an
// SMTP server that takes its mail.
type accountUnderTest struct {
	name  string
	acct  *mailtest.Account
	proxy *faultproxy.Proxy
	smtp  string // host:port
	pool  int
}

func newAccountUnderTest(t *testing.T, name string, pool int) *accountUnderTest {
	t.Helper()
	a := &accountUnderTest{name: name, acct: mailtest.NewAccount(t), pool: pool}
	p, err := faultproxy.New(faultproxy.Options{Target: a.acct.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	a.proxy = p
	sink, err := devmail.Start(context.Background(), devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Username: "sink", Password: "pw-sink"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close() })
	a.smtp = sink.SMTPAddr()
	return a
}

// setenv sets the account's variables with its prefix.
func (a *accountUnderTest) setenv(t *testing.T) {
	p := strings.ToUpper(a.name) + "_"
	sh, sp, _ := net.SplitHostPort(a.smtp)
	vars := map[string]string{"IMAP_HOST": a.proxy.Host(), "IMAP_PORT": strconv.Itoa(a.proxy.Port()), "IMAP_SSL": "false",
		"IMAP_STARTTLS": "false", "IMAP_USER": a.acct.Username, "IMAP_PASSWORD": a.acct.Password, "IMAP_POOL_SIZE": strconv.Itoa(a.pool),
		"SMTP_HOST": sh, "SMTP_PORT": sp, "SMTP_STARTTLS": "false", "INBOX_ADDRESS": a.address()}
	if a.acct.Dovecot {
		vars["IMAP_STARTTLS"], vars["TLS_CA_FILE"] = "true", a.acct.CAFile
	}
	for k, v := range vars {
		t.Setenv(p+k, v)
	}
}

// address is the account's own address (its test inboxes are +tags of it).
func (a *accountUnderTest) address() string {
	if strings.Contains(a.acct.Username, "@") {
		return a.acct.Username
	}
	return a.acct.Username + "@example.test"
}

// deliver stores a mail with a code, a link and an attachment in INBOX.
func (a *accountUnderTest) deliver(t *testing.T, to, subject, code string) {
	t.Helper()
	raw := "From: App <app@example.test>\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMessage-ID: <" + code + "@example.test>\r\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nYour verification code is " + code + ".\r\nConfirm: https://app.example.test/verify?token=t" + code + "\r\n" +
		"--b\r\nContent-Type: text/plain; name=note.txt\r\nContent-Disposition: attachment; filename=note.txt\r\n\r\nnote of " + a.name + "\r\n--b--\r\n"
	a.acct.Append(t, a.acct.Folder("INBOX"), []byte(raw))
}

// TestTwoAccountsServe: a serve with the sandbox and two accounts (two
// Dovecot users on the tier): every tool answers for each account named,
// waits on both run at once, a key limited to one account cannot reach
// the other, and each account's pool stays within its own size.
func TestTwoAccountsServe(t *testing.T) {
	sandboxEnv(t)
	work, home := newAccountUnderTest(t, "work", 2), newAccountUnderTest(t, "home", 3)
	work.setenv(t)
	home.setenv(t)
	t.Setenv("EMAIL_ACCOUNTS", "work,home")
	t.Setenv("MCP_API_KEY", serveKey)
	t.Setenv("MCP_API_KEYS", "work:"+workKey+",home:"+homeKey)
	t.Setenv("EMAIL_BASE_DIR", t.TempDir())
	t.Setenv("RATE_LIMIT_PER_MINUTE", "0")
	s := startServeKeepEnv(t)
	defer s.stop(t)

	code, res := callAs(t, s.base, serveKey, "list_accounts", nil)
	var names []string
	for _, a := range res["accounts"].([]any) {
		names = append(names, a.(map[string]any)["name"].(string))
	}
	if code != "" || !slices.Equal(names, []string{"sandbox", "work", "home"}) {
		t.Fatalf("list_accounts = %s %v", code, res)
	}

	called := map[string]bool{"list_accounts": true}
	for _, a := range []*accountUnderTest{work, home} {
		for _, tool := range everyTool(t, s.base, a) {
			called[tool] = true
		}
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/mcp/tools", nil)
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	for _, tool := range listed.Tools {
		if !called[tool.Name] {
			t.Errorf("%s was not called with an account", tool.Name)
		}
	}

	waitsOnBoth(t, s.base, work, home)
	scopedKeys(t, s.base)
	publicDocsNameNoAccount(t, s.base)
	poolsHold(t, s.base, work, home)
}

// everyTool calls every tool with account a.name and returns their names.
func everyTool(t *testing.T, base string, a *accountUnderTest) []string {
	t.Helper()
	var called []string
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		args["account"] = a.name
		code, res := callAs(t, base, serveKey, name, args)
		if code != "" {
			t.Fatalf("%s on %s: %s %v", name, a.name, code, res)
		}
		if res["account"] != a.name {
			t.Errorf("%s on %s: result names account %v", name, a.name, res["account"])
		}
		called = append(called, name)
		return res
	}
	call("list_folders", map[string]any{})
	ib := call("create_inbox", map[string]any{"label": "acct"})
	inbox, address := ib["inbox_id"].(string), ib["address"].(string)
	call("list_inboxes", map[string]any{})
	subject := "Code for " + a.name
	a.deliver(t, address, subject, "73"+strconv.Itoa(len(a.name))+"911")
	call("wait_for_email", map[string]any{"inbox_id": inbox, "since": 0, "timeout": 10})
	call("wait_for_otp", map[string]any{"inbox_id": inbox, "since": 0, "timeout": 10})
	call("wait_for_link", map[string]any{"inbox_id": inbox, "since": 0, "timeout": 10})
	call("get_latest", map[string]any{"inbox_id": inbox})
	call("list_messages", map[string]any{"inbox_id": inbox})
	found := call("search_emails", map[string]any{"subject": subject})
	msgs := found["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("search_emails on %s found %d messages, want 1 (mail of another account?)", a.name, len(msgs))
	}
	uid := msgs[0].(map[string]any)["id"].(string)
	call("read_email", map[string]any{"uid": uid})
	call("mark_email", map[string]any{"uid": uid, "flagged": true})
	call("get_thread", map[string]any{"uid": uid})
	file := call("download_attachment", map[string]any{"uid": uid, "attachment_index": 0})["file_path"].(string)
	call("reply_email", map[string]any{"uid": uid, "body": "thanks"})
	call("forward_email", map[string]any{"uid": uid, "to": "fwd@example.test"})
	call("send_email", map[string]any{"to": "bob@example.test", "subject": "from " + a.name, "body": "b"})
	call("send_email_with_attachments", map[string]any{"to": "bob@example.test", "subject": "file", "body": "b", "attachment_paths": []string{file}})
	d := call("save_draft", map[string]any{"to": "bob@example.test", "subject": "draft", "body": "d"})["draft_id"].(string)
	d = call("update_draft", map[string]any{"draft_id": d, "to": "bob@example.test", "subject": "draft", "body": "d2"})["draft_id"].(string)
	call("send_draft", map[string]any{"draft_id": d})
	d = call("save_draft", map[string]any{"to": "bob@example.test", "subject": "draft 2", "body": "d"})["draft_id"].(string)
	call("delete_draft", map[string]any{"draft_id": d})
	call("send_test_code", map[string]any{"inbox_id": inbox})
	folder := a.acct.Folder("acct-" + a.name)
	call("create_folder", map[string]any{"name": folder})
	call("rename_folder", map[string]any{"from": folder, "to": folder + "2"})
	moved := call("move_email", map[string]any{"uid": uid, "to_folder": folder + "2"})
	newUID := moved["new_uid"]
	call("delete_email", map[string]any{"uid": newUID, "folder": folder + "2", "permanent": true})
	call("delete_folder", map[string]any{"name": folder + "2"})
	call("delete_inbox", map[string]any{"inbox_id": inbox})
	return called
}

// waitsOnBoth starts waits on both accounts, then delivers: each wait gets
// its own account's code.
func waitsOnBoth(t *testing.T, base string, accts ...*accountUnderTest) {
	t.Helper()
	type job struct {
		a            *accountUnderTest
		inbox, addr  string
		code, result string
	}
	var jobs []*job
	for _, a := range accts {
		for i := range 4 {
			_, ib := callAs(t, base, serveKey, "create_inbox", map[string]any{"account": a.name, "label": "both" + strconv.Itoa(i)})
			jobs = append(jobs, &job{a: a, inbox: ib["inbox_id"].(string), addr: ib["address"].(string), code: fmt.Sprintf("5%d%04d", len(jobs), i)})
		}
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			b, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": "wait_for_otp",
				"arguments": map[string]any{"account": j.a.name, "inbox_id": j.inbox, "since": 0, "timeout": 20}}})
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", strings.NewReader(string(b)))
			req.Header.Set("X-API-Key", serveKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				j.result = err.Error()
				return
			}
			defer resp.Body.Close()
			var r struct {
				Structured map[string]any `json:"structuredContent"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&r)
			j.result = fmt.Sprint(r.Structured["otp"], "@", r.Structured["account"])
		})
	}
	// New inboxes: since=0 takes exactly the mail that follows, whichever of
	// the wait and its mail comes first; the pause makes waits-first usual.
	time.Sleep(500 * time.Millisecond)
	for _, j := range jobs {
		j.a.deliver(t, j.addr, "Your code", j.code)
	}
	wg.Wait()
	for _, j := range jobs {
		if want := j.code + "@" + j.a.name; j.result != want {
			t.Errorf("wait on %s = %s, want %s", j.a.name, j.result, want)
		}
	}
}

// scopedKeys: a key of one account lists and reaches only that one.
func scopedKeys(t *testing.T, base string) {
	t.Helper()
	if code, _ := callAs(t, base, workKey, "list_folders", map[string]any{"account": "home"}); code != "ACCOUNT_NOT_FOUND" {
		t.Errorf("work's key on home: %q, want ACCOUNT_NOT_FOUND", code)
	}
	if code, _ := callAs(t, base, homeKey, "list_folders", map[string]any{"account": "sandbox"}); code != "ACCOUNT_NOT_FOUND" {
		t.Errorf("home's key on the sandbox: %q, want ACCOUNT_NOT_FOUND", code)
	}
	if code, res := callAs(t, base, workKey, "list_folders", map[string]any{}); code != "" || res["account"] != "work" {
		t.Errorf("work's key without account: %s on %v, want work", code, res["account"])
	}
	code, res := callAs(t, base, homeKey, "list_accounts", nil)
	list, _ := res["accounts"].([]any)
	if b, _ := json.Marshal(res); code != "" || len(list) != 1 || list[0].(map[string]any)["name"] != "home" {
		t.Errorf("home's key: list_accounts = %s", b)
	}
}

// publicDocsNameNoAccount: /openapi.json and /docs, open without a key,
// show no account argument and so no account's name.
func publicDocsNameNoAccount(t *testing.T, base string) {
	t.Helper()
	for _, path := range []string{"/openapi.json", "/docs"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		for _, name := range []string{"work", "home"} {
			if strings.Contains(body, `"`+name+`"`) || strings.Contains(body, "&#34;"+name+"&#34;") || strings.Contains(body, ">"+name+"<") {
				t.Errorf("GET %s (no key) names the account %s", path, name)
			}
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "list_folders") {
			t.Errorf("GET %s (no key) = %d, %d bytes", path, resp.StatusCode, len(b))
		}
	}
}

// poolsHold runs many searches on both accounts at once: neither opens
// more connections than its own IMAP_POOL_SIZE, plus the one of its INBOX
// watcher (watchers are not taken from the pool: imap.Options.PoolSize).
func poolsHold(t *testing.T, base string, accts ...*accountUnderTest) {
	t.Helper()
	var peak [2]atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			for i, a := range accts {
				if n := int64(a.proxy.Stats().Active); n > peak[i].Load() {
					peak[i].Store(n)
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	var wg sync.WaitGroup
	for i := range 24 {
		a := accts[i%2]
		wg.Go(func() {
			b, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": "search_emails",
				"arguments": map[string]any{"account": a.name, "text": "code"}}})
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp/call", strings.NewReader(string(b)))
			req.Header.Set("X-API-Key", serveKey)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	for i, a := range accts {
		if got := peak[i].Load(); got > int64(a.pool)+1 || got == 0 {
			t.Errorf("%s: %d IMAP connections at once, pool size %d (+1 watcher)", a.name, got, a.pool)
		}
		t.Logf("%s: at most %d IMAP connections at once (IMAP_POOL_SIZE=%d, +1 watcher)", a.name, peak[i].Load(), a.pool)
	}
}

// TestLoginNamedAccount: `email-mcp login --account work` signs in the
// account of EMAIL_ACCOUNTS with its prefixed OAUTH_ variables and stores
// its token apart; check then signs in both accounts (the sandbox and
// work) and no secret reaches its output or log.
func TestLoginNamedAccount(t *testing.T) {
	a := newOAuthAccount(t)
	dataDir := t.TempDir()
	env := a.setenv(t)
	sandboxEnv(t)
	t.Setenv("EMAIL_DATA_DIR", dataDir)
	for k, v := range a.env {
		if config.AccountVariable(k) {
			t.Setenv(k, "")
			t.Setenv("WORK_"+k, v)
		}
	}
	t.Setenv("WORK_OAUTH_REFRESH_TOKEN", "")
	t.Setenv("WORK_OAUTH_DEVICE_AUTH_URL", a.as.DeviceURL)
	t.Setenv("EMAIL_ACCOUNTS", "work")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var errb syncBuffer
	if code := run(ctx, []string{"login", "--account", "play", "--env-file", env}, nil, &syncBuffer{}, &errb); code != exitConfig ||
		!strings.Contains(errb.String(), `no account "play"`) {
		t.Errorf("login --account play: exit %d, %s", code, errb.String())
	}
	out := &promptApprover{as: a.as}
	if code := run(ctx, []string{"login", "--account", "work", "--env-file", env}, nil, out, &errb); code != exitOK {
		t.Fatalf("login --account work: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(dataDir, "oauth-token-work.json")); err != nil {
		t.Fatalf("work's token: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, config.DefaultTokenStore)); err == nil {
		t.Errorf("login --account work wrote the default account's token file")
	}
	var cout, clog syncBuffer
	if code := run(ctx, []string{"check", "--env-file", env}, nil, &cout, &clog); code != exitOK {
		t.Fatalf("check: exit %d\n%s\n%s", code, cout.String(), clog.String())
	}
	for _, want := range []string{"== account sandbox (1 of 2)", "== account work (2 of 2)", "oauth-token-work.json", "Result: OK"} {
		if !strings.Contains(cout.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, cout.String())
		}
	}
	a.assertNoSecrets(t, "login", out.String()+errb.String())
	a.assertNoSecrets(t, "check", cout.String()+clog.String())
}
