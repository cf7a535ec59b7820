package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// workKey is the second API key of TestGoSDKTwoAccounts: MCP_API_KEYS
// limits it to the account work.
const workKey = "e2e-gosdk-work-key-0123456789ab"

// twoAccounts is a server with a default account and the account work,
// each its own mailbox.
type twoAccounts struct {
	*server
	def, work *account
	defName   string // the default account's name: sandbox, or default on Dovecot
}

// startTwoAccounts starts the binary with EMAIL_ACCOUNTS=work: on the
// sandbox tier the default account is the embedded sandbox and work an
// in-memory IMAP server (memimap_test.go); with E2E_DOVECOT_ENV both are
// fresh Dovecot users.
func startTwoAccounts(t *testing.T) *twoAccounts {
	t.Helper()
	s := &twoAccounts{defName: "sandbox"}
	if f := os.Getenv("E2E_DOVECOT_ENV"); f != "" {
		dv := readEnvFile(t, f)
		s.def, s.work, s.defName = dovecotAccount(t, dv), dovecotAccount(t, dv), "default"
	} else {
		// work's listeners first: the sandbox's ports are only free ports
		// (freePort), which a later listener on port 0 could take.
		s.work = memAccount(t, "work")
		s.def = sandboxAccount(t)
	}
	extra := []string{"EMAIL_ACCOUNTS=work", "MCP_API_KEYS=work:" + workKey, "RATE_LIMIT_PER_MINUTE=0"}
	for _, kv := range s.work.env {
		// The wait variables are the server's, for every account.
		if !strings.HasPrefix(kv, "WAIT_") {
			extra = append(extra, "WORK_"+kv)
		}
	}
	s.server = startWith(t, s.def, extra...)
	t.Logf("default account %s (%s), work %s (%s)", s.defName, s.def.me, s.work.tier, s.work.me)
	return s
}

// checked is a session whose every result is validated against its
// tool's outputSchema, as the SDK's client does not (v1.8.0:
// ClientSession.CallTool returns structuredContent unchecked; only its
// server validates). The schemas are resolved with the SDK's own
// jsonschema-go.
type checked struct {
	cs      *mcp.ClientSession
	schemas map[string]*jsonschema.Resolved
	tools   map[string]*mcp.Tool
}

func newChecked(t *testing.T, ctx context.Context, cs *mcp.ClientSession) *checked {
	t.Helper()
	lst, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools = %v", err)
	}
	c := &checked{cs: cs, schemas: map[string]*jsonschema.Resolved{}, tools: map[string]*mcp.Tool{}}
	for _, tool := range lst.Tools {
		c.tools[tool.Name] = tool
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: outputSchema %s: %v", tool.Name, b, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: outputSchema does not resolve: %v", tool.Name, err)
		}
		c.schemas[tool.Name] = r
	}
	return c
}

// call calls a tool and returns its structured result and isError; the
// result must pass the tool's outputSchema.
func (c *checked) call(t *testing.T, ctx context.Context, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	out, isErr, err := c.try(ctx, name, args)
	if err != nil {
		t.Fatal(err)
	}
	return out, isErr
}

// try is call without t, for goroutines.
func (c *checked) try(ctx context.Context, name string, args map[string]any) (map[string]any, bool, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, false, fmt.Errorf("CallTool(%s) = %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		return nil, false, fmt.Errorf("CallTool(%s): structuredContent %s: %v", name, b, err)
	}
	// The schemas have an error branch (anyOf), so error results too.
	if err := c.schemas[name].Validate(out); err != nil {
		return nil, false, fmt.Errorf("%s: result %s (isError %v) fails its outputSchema: %v", name, b, res.IsError, err)
	}
	return out, res.IsError, nil
}

// on calls a tool on account acct; it must succeed and name acct.
func (c *checked) on(t *testing.T, ctx context.Context, acct, name string, args map[string]any) map[string]any {
	t.Helper()
	args["account"] = acct
	out, isErr := c.call(t, ctx, name, args)
	if isErr || out["account"] != acct {
		t.Fatalf("%s(%v) = %v (isError %v), want a result of account %s", name, args, out, isErr, acct)
	}
	return out
}

// accountEnums checks tools/list: every tool but list_accounts takes an
// optional account whose enum is want, list_accounts takes none, and the
// tools are the golden ones plus list_accounts.
func (c *checked) accountEnums(t *testing.T, want []string) {
	t.Helper()
	var names []string
	for name, tool := range c.tools {
		names = append(names, name)
		b, _ := json.Marshal(tool.InputSchema)
		var in struct {
			Properties struct {
				Account *struct {
					Type string   `json:"type"`
					Enum []string `json:"enum"`
				} `json:"account"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: inputSchema %s: %v", name, b, err)
		}
		p := in.Properties.Account
		switch {
		case name == "list_accounts" && p != nil:
			t.Errorf("list_accounts takes an account: %s", b)
		case name == "list_accounts":
		case p == nil || p.Type != "string" || !slices.Equal(p.Enum, want) || slices.Contains(in.Required, "account"):
			t.Errorf("%s: account argument %s, want an optional string of enum %v", name, b, want)
		}
	}
	slices.Sort(names)
	want = slices.Sorted(slices.Values(append(goldenNames(t), "list_accounts")))
	if !slices.Equal(names, want) {
		t.Errorf("tools/list names = %v\nwant (golden + list_accounts) %v", names, want)
	}
}

// schemaBites shows that the check is not empty: list_folders' result
// with account a number must fail its outputSchema.
func (c *checked) schemaBites(t *testing.T, good map[string]any) {
	t.Helper()
	bad := map[string]any{}
	for k, v := range good {
		bad[k] = v
	}
	bad["account"] = 42
	if err := c.schemas["list_folders"].Validate(bad); err == nil {
		t.Errorf("list_folders' outputSchema takes account 42: the schema check checks nothing")
	}
}

// TestGoSDKTwoAccounts drives a server with two accounts with the SDK
// client over Streamable HTTP, revision 2026-07-28 and then 2025-11-25.
func TestGoSDKTwoAccounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startTwoAccounts(t)
	accts := []string{s.defName, "work"}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		cs := connect(t, ctx, s.server, version)
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated protocol version = %q, want %s", got, version)
		}
		c := newChecked(t, ctx, cs)
		c.accountEnums(t, accts)
		listed := c.on(t, ctx, "work", "list_folders", map[string]any{})
		c.schemaBites(t, listed)
		out, isErr := c.call(t, ctx, "list_accounts", map[string]any{})
		if got := accountNames(out); isErr || !slices.Equal(got, accts) {
			t.Fatalf("%s: list_accounts = %v (isError %v), want %v", version, out, isErr, accts)
		}
		if version != "2026-07-28" {
			continue
		}
		eachSeesOwnMail(t, ctx, c, s)
		waitsOnBoth(t, ctx, c, s)
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		scopedKey(t, ctx, s, version)
	}
}

func accountNames(out map[string]any) []string {
	var names []string
	list, _ := out["accounts"].([]any)
	for _, a := range list {
		m, _ := a.(map[string]any)
		names = append(names, fmt.Sprint(m["name"]))
	}
	return names
}

// eachSeesOwnMail delivers one mail to each account: a search on each
// finds its own and not the other's, and read_email reads it.
func eachSeesOwnMail(t *testing.T, ctx context.Context, c *checked, s *twoAccounts) {
	t.Helper()
	tag := randomHex(t)
	mails := map[string]*account{s.defName: s.def, "work": s.work}
	for name, a := range mails {
		sendMail(t, &server{account: a}, a.me, "Only for "+name+" "+tag, "Mail of "+name+" "+tag)
	}
	for name := range mails {
		for other := range mails {
			found := c.on(t, ctx, name, "search_emails", map[string]any{"subject": "Only for " + other + " " + tag})
			msgs, _ := found["messages"].([]any)
			want := 0
			if name == other {
				want = 1
			}
			if len(msgs) != want {
				t.Fatalf("search_emails on %s for the mail of %s: %d messages, want %d: %v", name, other, len(msgs), want, found)
			}
			if name != other {
				continue
			}
			read := c.on(t, ctx, name, "read_email", map[string]any{"uid": msgs[0].(map[string]any)["uid"]})
			if body, _ := read["body_text"].(string); !strings.Contains(body, "Mail of "+name+" "+tag) {
				t.Fatalf("read_email on %s: body_text %q", name, body)
			}
		}
	}
}

// waitsOnBoth runs a wait_for_otp on each account at once; the mail comes
// after, a code for each: each wait gets its own.
func waitsOnBoth(t *testing.T, ctx context.Context, c *checked, s *twoAccounts) {
	t.Helper()
	type wait struct {
		name        string
		acct        *account
		inbox, addr string
		code        string
		got         chan string
	}
	waits := []*wait{{name: s.defName, acct: s.def, code: "473000"}, {name: "work", acct: s.work, code: "573001"}}
	for _, w := range waits {
		ib := c.on(t, ctx, w.name, "create_inbox", map[string]any{"label": "both"})
		w.inbox, w.addr, w.got = ib["inbox_id"].(string), ib["address"].(string), make(chan string, 1)
		go func() {
			out, isErr, err := c.try(ctx, "wait_for_otp", map[string]any{"account": w.name, "inbox_id": w.inbox, "since": 0, "timeout": 20})
			switch {
			case err != nil:
				w.got <- err.Error()
			case isErr:
				w.got <- fmt.Sprint("error ", out["error"])
			default:
				w.got <- fmt.Sprint(out["otp"], "@", out["account"])
			}
		}()
	}
	// since=0 on a new inbox: the wait gets its mail whichever comes first;
	// the pause makes waits-first (pushed by IDLE) the usual order.
	time.Sleep(500 * time.Millisecond)
	for _, w := range waits {
		sendMail(t, &server{account: w.acct}, w.addr, "Your sign-in code", "Your verification code is "+w.code+".")
	}
	for _, w := range waits {
		if got, want := <-w.got, w.code+"@"+w.name; got != want {
			t.Errorf("wait_for_otp on %s = %s, want %s", w.name, got, want)
		}
	}
}

// scopedKey: the SDK session of the key limited to work sees only work in
// every enum, lands on work without an account, and a call naming the
// default account is an error result ACCOUNT_NOT_FOUND.
func scopedKey(t *testing.T, ctx context.Context, s *twoAccounts, version string) {
	t.Helper()
	c := newChecked(t, ctx, connectAs(t, ctx, s.server, workKey, version))
	c.accountEnums(t, []string{"work"})
	out, isErr := c.call(t, ctx, "list_folders", map[string]any{})
	if isErr || out["account"] != "work" {
		t.Errorf("work's key, list_folders without account = %v (isError %v), want work", out, isErr)
	}
	out, isErr = c.call(t, ctx, "list_accounts", map[string]any{})
	if got := accountNames(out); isErr || !slices.Equal(got, []string{"work"}) {
		t.Errorf("work's key: list_accounts = %v, want work only", out)
	}
	// The default account answers as a name that is no account does: the
	// key learns nothing of the accounts it may not use.
	var msgs []string
	for _, name := range []string{s.defName, "nosuch"} {
		out, isErr = c.call(t, ctx, "list_folders", map[string]any{"account": name})
		e, _ := out["error"].(map[string]any)
		if !isErr || e["code"] != "ACCOUNT_NOT_FOUND" {
			t.Errorf("%s: work's key on %s: %v (isError %v), want ACCOUNT_NOT_FOUND", version, name, out, isErr)
		}
		msgs = append(msgs, strings.ReplaceAll(fmt.Sprint(e["message"]), name, "NAME"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("%s: work's key: ACCOUNT_NOT_FOUND for %s says %q, for no account %q", version, s.defName, msgs[0], msgs[1])
	}
}
