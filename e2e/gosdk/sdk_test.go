package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const key = "e2e-gosdk-key-0123456789abcdef"

// server is one email-mcp process on free loopback ports, over the
// account of the tier under test (tier_test.go).
type server struct {
	url string
	*account
}

// freePort asks the kernel for a free loopback port.
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

func start(t *testing.T) *server {
	t.Helper()
	return startWith(t, newAccount(t))
}

// startWith starts the server over acct with the variables of extra added.
func startWith(t *testing.T, acct *account, extra ...string) *server {
	t.Helper()
	mcpPort := freePort(t)
	cmd := exec.Command(binary(t))
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir, "MCP_API_KEY=" + key,
		fmt.Sprintf("MCP_PORT=%d", mcpPort)}, slices.Concat(acct.env, extra)...)
	t.Logf("tier %s, INBOX_ADDRESS %s", acct.tier, acct.me)
	logs, err := os.Create(filepath.Join(cmd.Dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
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
		logs.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("server log:\n%s", b)
		}
	})
	s := &server{url: fmt.Sprintf("http://127.0.0.1:%d", mcpPort), account: acct}
	for i := 0; i < 200; i++ {
		if r, err := http.Get(s.url + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server did not answer /health within 10 s")
	return nil
}

// keyed adds an API key to every request of the SDK's transport.
type keyed struct {
	key  string
	next http.RoundTripper
}

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-API-Key", k.key)
	return k.next.RoundTrip(r)
}

func connect(t *testing.T, ctx context.Context, s *server, version string) *mcp.ClientSession {
	t.Helper()
	return connectAs(t, ctx, s, key, version)
}

// connectAs connects with the API key apiKey.
func connectAs(t *testing.T, ctx context.Context, s *server, apiKey, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "email-mcp-e2e-gosdk", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp",
		HTTPClient: &http.Client{Transport: keyed{apiKey, http.DefaultTransport}}, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect(%s) = %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// goldenNames are the tools of tools/list as the golden file has them.
func goldenNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tools", "testdata", "tools_list.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range g.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// call calls a tool and decodes its structured result (or its error).
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s) = %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		t.Fatalf("CallTool(%s): structuredContent %s: %v", name, b, err)
	}
	return out, res.IsError
}

func mustCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := call(t, ctx, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) = error %v", name, args, out["error"])
	}
	return out
}

// sendMail sends the app's mail to the account's SMTP server, logging in
// when the tier asks for it (the Dovecot relay does).
func sendMail(t *testing.T, s *server, to, subject, body string) {
	t.Helper()
	msg := "From: " + s.app + "\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + fmt.Sprint(time.Now().UnixNano()) + "@app.example.test>\r\n\r\n" + body + "\r\n"
	// As an app under test does, in plain text on loopback (smtp.SendMail
	// would take the sandbox's STARTTLS and refuse its self-signed
	// certificate).
	c, err := smtp.Dial(s.smtpAddr)
	if err != nil {
		t.Fatalf("SMTP to the %s: %v", s.tier, err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		t.Fatal(err)
	}
	if s.smtpUser != "" {
		// net/smtp sends PLAIN in clear text only to 127.0.0.1 or localhost.
		if err := c.Auth(smtp.PlainAuth("", s.smtpUser, s.smtpPass, "127.0.0.1")); err != nil {
			t.Fatalf("SMTP AUTH: %v", err)
		}
	}
	if err := c.Mail(s.app); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(to); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("SMTP DATA: %v", err)
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}
}

// TestGoSDK2026 connects with revision 2026-07-28 (server/discover, no
// initialize): the server must answer in that revision, list exactly the
// tools of the golden file, and serve the mail and inbox tools.
func TestGoSDK2026(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s := start(t)
	cs := connect(t, ctx, s, "2026-07-28")
	// The SDK falls back to initialize when server/discover fails: the
	// revision it ends on tells which way it went.
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("negotiated protocol version = %q, want 2026-07-28 (server/discover)", got)
	}
	lst, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools = %v", err)
	}
	var names []string
	for _, tool := range lst.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: annotations %v, output schema %v", tool.Name, tool.Annotations, tool.OutputSchema)
		}
	}
	slices.Sort(names)
	if want := goldenNames(t); !slices.Equal(names, want) {
		t.Fatalf("tools/list names = %v\nwant (golden) %v", names, want)
	}

	// The mailsocket loop: create an inbox, since=0 on the empty inbox,
	// send_test_code, wait_for_otp.
	inbox := mustCall(t, ctx, cs, "create_inbox", map[string]any{"label": "gosdk"})
	id, addr := inbox["inbox_id"].(string), inbox["address"].(string)
	mustCall(t, ctx, cs, "send_test_code", map[string]any{"inbox_id": id})
	otp := mustCall(t, ctx, cs, "wait_for_otp", map[string]any{"inbox_id": id, "since": 0, "timeout": 10})
	if code, _ := otp["otp"].(string); len(code) < 4 {
		t.Fatalf("wait_for_otp = %v", otp)
	}

	// A wait that is blocked when the app's mail arrives over SMTP.
	got := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_otp",
			Arguments: map[string]any{"inbox_id": id, "since": otp["id"], "timeout": 20}})
		if err != nil {
			got <- map[string]any{"transport_error": err.Error()}
			return
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		got <- out
	}()
	time.Sleep(300 * time.Millisecond)
	sendMail(t, s, addr, "Your sign-in code", "Your verification code is 482913. It expires in 10 minutes.")
	if res := <-got; res["otp"] != "482913" {
		t.Fatalf("wait_for_otp across an SMTP delivery = %v, want otp 482913", res)
	}

	// Mail tools: search, read, an unknown inbox as a typed error.
	found := mustCall(t, ctx, cs, "search_emails", map[string]any{"subject": "sign-in code", "limit": 5})
	msgs, _ := found["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("search_emails = %v, want 1 message", found)
	}
	uid := msgs[0].(map[string]any)["uid"]
	read := mustCall(t, ctx, cs, "read_email", map[string]any{"uid": uid})
	if body, _ := read["body_text"].(string); !strings.Contains(body, "482913") {
		t.Fatalf("read_email body_text = %q", body)
	}
	out, isErr := call(t, ctx, cs, "get_latest", map[string]any{"inbox_id": "nobody-0badcafe"})
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != "INBOX_NOT_FOUND" {
		t.Fatalf("get_latest of an unknown inbox = %v (isError %v), want INBOX_NOT_FOUND", out, isErr)
	}
}

// TestGoSDKLegacyRevision: the same SDK on the last revision with an
// initialize handshake still works.
func TestGoSDKLegacyRevision(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := start(t)
	cs := connect(t, ctx, s, "2025-11-25")
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Fatalf("negotiated protocol version = %q, want 2025-11-25", got)
	}
	out := mustCall(t, ctx, cs, "list_folders", map[string]any{"include_counts": true})
	if f, _ := out["folders"].([]any); len(f) == 0 {
		t.Fatalf("list_folders = %v", out)
	}
}
