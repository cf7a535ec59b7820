package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/mcpkit"
	emsmtp "github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// scopeKey carries a test caller's accounts, as MCP_API_KEYS' scopes do.
type scopeKey struct{}

func asCaller(accounts ...string) context.Context {
	return context.WithValue(context.Background(), scopeKey{}, accounts)
}

// twoAccountServer serves two sandboxes as the accounts work and home.
type twoAccountServer struct {
	ts   *tools.Server
	smtp map[string]string // account → its sandbox's SMTP address
}

func newTwoAccountServer(t *testing.T) *twoAccountServer {
	t.Helper()
	s := &twoAccountServer{smtp: map[string]string{}}
	var list []tools.Account
	for _, name := range []string{"work", "home"} {
		sb, err := devmail.Start(context.Background(), devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Username: name, Password: "pw-" + name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sb.Close() })
		h, p := splitAddr(t, sb.IMAPAddr())
		mail := imap.New(imap.Options{Host: h, Port: p, Username: name, Password: "pw-" + name, Security: imap.SecurityPlain, PoolSize: 2})
		t.Cleanup(func() { _ = mail.Close() })
		sh, sp := splitAddr(t, sb.SMTPAddr())
		s.smtp[name] = sb.SMTPAddr()
		list = append(list, tools.Account{Name: name, Address: name + "@sandbox.localhost", Deps: tools.Deps{
			Mail: mail, Inbox: mail, Sent: mail,
			Sender:  emsmtp.New(emsmtp.Options{Host: sh, Port: sp, Security: emsmtp.SecurityPlain}),
			Send:    tools.SendOptions{From: name + "@sandbox.localhost", SaveSent: "false"},
			Inboxes: tools.InboxOptions{Address: "inbox-" + name + "@sandbox.localhost", Sandbox: true, WaitMax: 30 * time.Second},
		}})
	}
	ts, err := tools.NewAccounts(list, tools.Options{Logger: slog.New(slog.DiscardHandler),
		CallerAccounts: func(ctx context.Context) []string {
			a, _ := ctx.Value(scopeKey{}).([]string)
			return a
		}})
	if err != nil {
		t.Fatal(err)
	}
	s.ts = ts
	return s
}

// call runs a tool and decodes its structuredContent; it returns the error
// code, "" on success.
func (s *twoAccountServer) call(t *testing.T, ctx context.Context, name string, args map[string]any, out any) string {
	t.Helper()
	raw, isErr, err := s.ts.Call(ctx, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if isErr {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		return e.Error.Code + ": " + e.Error.Message
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %s: %v", name, raw, err)
		}
	}
	return ""
}

// listTools is tools/list as the caller of ctx sees it.
func (s *twoAccountServer) listTools(t *testing.T, ctx context.Context) map[string]map[string]any {
	t.Helper()
	resp := s.ts.MCP().HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, _ := json.Marshal(resp)
	var r struct {
		Result struct {
			Tools []struct {
				Name         string         `json:"name"`
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Result.Tools) == 0 {
		t.Fatalf("tools/list = %s (%v)", b, err)
	}
	out := map[string]map[string]any{}
	for _, tool := range r.Result.Tools {
		props, _ := tool.InputSchema["properties"].(map[string]any)
		acct, _ := props["account"].(map[string]any)
		out[tool.Name] = map[string]any{"account": acct, "output": tool.OutputSchema}
	}
	return out
}

func enumOf(p map[string]any) []string {
	var out []string
	l, _ := p["enum"].([]any)
	for _, v := range l {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

func TestAccountsListAndRoute(t *testing.T) {
	s := newTwoAccountServer(t)
	ctx := context.Background()
	listed := s.listTools(t, ctx)
	if _, ok := listed["list_accounts"]; !ok {
		t.Fatal("list_accounts is not served with two accounts")
	}
	for name, tool := range listed {
		acct, _ := tool["account"].(map[string]any)
		if name == "list_accounts" {
			if acct != nil {
				t.Errorf("list_accounts takes an account argument")
			}
			continue
		}
		if got := enumOf(acct); !slices.Equal(got, []string{"work", "home"}) {
			t.Errorf("%s: account enum = %v, want [work home]", name, got)
		}
		var out struct {
			AnyOf []struct {
				Required   []string       `json:"required"`
				Properties map[string]any `json:"properties"`
			} `json:"anyOf"`
		}
		b, _ := json.Marshal(tool["output"])
		if err := json.Unmarshal(b, &out); err != nil || len(out.AnyOf) == 0 || out.AnyOf[0].Properties["account"] == nil ||
			!slices.Contains(out.AnyOf[0].Required, "account") {
			t.Errorf("%s: output schema does not require account: %s", name, b)
		}
	}

	// A mail sent through work is in work's sandbox only; the result names
	// the account; no account argument means the first.
	subject := fmt.Sprintf("to work %d", time.Now().UnixNano())
	var sent map[string]any
	if code := s.call(t, ctx, "send_email", map[string]any{"account": "work", "to": "someone@sandbox.localhost", "subject": subject, "body": "hi"}, &sent); code != "" {
		t.Fatalf("send_email: %s", code)
	}
	if sent["account"] != "work" {
		t.Errorf("send_email result account = %v", sent["account"])
	}
	found := func(account string) int {
		args := map[string]any{"subject": subject}
		if account != "" {
			args["account"] = account
		}
		var r struct {
			Account string `json:"account"`
			Total   int    `json:"total"`
		}
		if code := s.call(t, ctx, "search_emails", args, &r); code != "" {
			t.Fatalf("search_emails on %q: %s", account, code)
		}
		want := account
		if want == "" {
			want = "work"
		}
		if r.Account != want {
			t.Errorf("search_emails on %q answered for %q", account, r.Account)
		}
		return r.Total
	}
	for i := 0; i < 100 && found("work") == 0; i++ { // the sandbox files the mail a moment after SMTP's answer
		time.Sleep(20 * time.Millisecond)
	}
	if w, h, d := found("work"), found("home"), found(""); w != 1 || h != 0 || d != 1 {
		t.Errorf("found on work %d, home %d, default %d; want 1, 0, 1", w, h, d)
	}
	if code := s.call(t, ctx, "list_folders", map[string]any{"account": "play"}, nil); !strings.HasPrefix(code, "ACCOUNT_NOT_FOUND") {
		t.Errorf("unknown account: %q", code)
	}
	if code := s.call(t, ctx, "list_folders", map[string]any{"account": 7}, nil); !strings.HasPrefix(code, "INVALID_ARGUMENT") {
		t.Errorf("account 7: %q", code)
	}
	var la mcpkit.AccountsResult
	if code := s.call(t, ctx, "list_accounts", nil, &la); code != "" || len(la.Accounts) != 2 || !la.Accounts[0].Default || la.Accounts[1].Name != "home" || !la.Accounts[1].Send {
		t.Errorf("list_accounts = %+v (%s)", la, code)
	}
}

func TestAccountScopes(t *testing.T) {
	s := newTwoAccountServer(t)
	home := asCaller("home")
	listed := s.listTools(t, home)
	if got := enumOf(listed["search_emails"]["account"].(map[string]any)); !slices.Equal(got, []string{"home"}) {
		t.Errorf("a home-only caller lists accounts %v", got)
	}
	if code := s.call(t, home, "list_folders", map[string]any{"account": "work"}, nil); !strings.HasPrefix(code, "ACCOUNT_NOT_FOUND") {
		t.Errorf("home-only caller on work: %q, want ACCOUNT_NOT_FOUND", code)
	}
	unknown := s.call(t, home, "list_folders", map[string]any{"account": "nope"}, nil)
	other := s.call(t, home, "list_folders", map[string]any{"account": "work"}, nil)
	if strings.ReplaceAll(unknown, "nope", "X") != strings.ReplaceAll(other, "work", "X") {
		t.Errorf("another key's account answers %q, an unknown one %q: they must not differ", other, unknown)
	}
	var r struct {
		Account string `json:"account"`
	}
	if code := s.call(t, home, "list_folders", nil, &r); code != "" || r.Account != "home" {
		t.Errorf("home-only caller without account: %q on %q, want home", code, r.Account)
	}
	var la mcpkit.AccountsResult
	if s.call(t, home, "list_accounts", nil, &la); len(la.Accounts) != 1 || la.Accounts[0].Name != "home" || !la.Accounts[0].Default {
		t.Errorf("list_accounts for home only = %+v", la)
	}
	none := context.WithValue(context.Background(), scopeKey{}, []string{})
	if code := s.call(t, none, "list_folders", nil, nil); !strings.HasPrefix(code, "ACCOUNT_NOT_FOUND") {
		t.Errorf("a caller of no account: %q", code)
	}
}

// TestAccountWaitsAtOnce: waits on both accounts at once each get their own
// account's code, mail sent while they run.
func TestAccountWaitsAtOnce(t *testing.T) {
	s := newTwoAccountServer(t)
	ctx := context.Background()
	const per = 5
	type job struct{ account, inbox, address, code string }
	var jobs []job
	for _, account := range []string{"work", "home"} {
		for i := range per {
			var ib inboxtools.CreateInboxResult
			if code := s.call(t, ctx, "create_inbox", map[string]any{"account": account, "label": fmt.Sprintf("w%d", i)}, &ib); code != "" {
				t.Fatalf("create_inbox: %s", code)
			}
			jobs = append(jobs, job{account, ib.InboxID, ib.Address, fmt.Sprintf("%d%05d", len(jobs)+1, i)})
		}
	}
	var wg sync.WaitGroup
	got := make([]string, len(jobs))
	for i, j := range jobs {
		wg.Go(func() {
			var r struct {
				Account string `json:"account"`
				OTP     string `json:"otp"`
			}
			raw, isErr, err := s.ts.Call(ctx, "wait_for_otp", map[string]any{"account": j.account, "inbox_id": j.inbox, "since": 0, "timeout": 20})
			if err == nil && !isErr && json.Unmarshal(raw, &r) == nil && r.Account == j.account {
				got[i] = r.OTP
				return
			}
			got[i] = fmt.Sprintf("%s (%v)", raw, err)
		})
	}
	// The inboxes are new, so since=0 takes exactly the mail that follows:
	// a wait that starts after its mail still gets it. The pause makes the
	// usual order (waits first, pushed by IDLE) likely, not required.
	time.Sleep(300 * time.Millisecond)
	for _, j := range jobs {
		msg := "From: app@example.test\r\nTo: " + j.address + "\r\nSubject: Your code\r\n\r\nYour verification code is " + j.code + "\r\n"
		c, err := gosmtp.Dial(s.smtp[j.account])
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendMail("app@example.test", []string{j.address}, strings.NewReader(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.Close()
	}
	wg.Wait()
	for i, j := range jobs {
		if got[i] != j.code {
			t.Errorf("wait on %s %s = %s, want %s", j.account, j.inbox, got[i], j.code)
		}
	}
}
