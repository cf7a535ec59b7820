package tools_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

var update = flag.Bool("update", false, "rewrite golden files")

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// inProcessClient is an initialized in-process MCP client of ts.
func inProcessClient(t testing.TB, ts *tools.Server) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(ts.MCP())
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	return c
}

func initClient(t testing.TB, c *client.Client) {
	t.Helper()
	// Start's context lives as long as the SSE stream: not a timeout.
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("client Start() = %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "email-mcp-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("Initialize() = %v", err)
	}
}

func callTool(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := tryCallTool(c, name, args)
	if err != nil {
		t.Fatalf("CallTool(%s) = %v", name, err)
	}
	return res
}

// tryCallTool is callTool for other goroutines than the test's: it returns
// the error instead of failing the test (t.Fatalf must not run there).
func tryCallTool(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// structured decodes a result's structuredContent into v.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("marshal structuredContent: %v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// checkListFolders asserts the sandbox's folders with their special use and
// the INBOX count.
func checkListFolders(t testing.TB, res *mcp.CallToolResult, wantInbox uint32) {
	t.Helper()
	if res.IsError {
		t.Fatalf("list_folders isError: %+v", res.Content)
	}
	var out tools.ListFoldersResult
	structured(t, res, &out)
	special := map[string]string{}
	var inbox *tools.FolderInfo
	for i, f := range out.Folders {
		if f.SpecialUse != nil {
			special[*f.SpecialUse] = f.Name
		}
		if f.Name == "INBOX" {
			inbox = &out.Folders[i]
		}
	}
	for _, su := range []string{"sent", "drafts", "trash", "junk", "archive"} {
		if special[su] == "" {
			t.Errorf("no folder with special_use %q in %+v", su, out.Folders)
		}
	}
	if inbox == nil || inbox.Messages == nil || *inbox.Messages != wantInbox {
		t.Errorf("INBOX = %+v, want messages=%d", inbox, wantInbox)
	}
	text := res.Content[0].(mcp.TextContent).Text
	var fromText tools.ListFoldersResult
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || len(fromText.Folders) != len(out.Folders) {
		t.Errorf("text content is not the JSON result: %q (%v)", text, err)
	}
}

func TestStreamableHTTPListFolders(t *testing.T) {
	env := newTestEnv(t, tools.Options{Name: "email-mcp", Version: "test"})
	env.sendMail(t, "someone@example.test", "hello")
	c, err := client.NewStreamableHttpClient(env.http.URL+"/mcp", mcptransport.WithHTTPHeaders(map[string]string{"X-API-Key": testKey}))
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools() = %v", err)
	}
	if len(list.Tools) == 0 || list.Tools[0].Name == "" {
		t.Fatalf("ListTools() = %+v", list.Tools)
	}
	checkListFolders(t, callTool(t, c, "list_folders", map[string]any{"include_counts": true}), 1)
}

func TestSSEListFolders(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	c, err := client.NewSSEMCPClient(env.http.URL+"/sse", mcptransport.WithHeaders(map[string]string{"Authorization": "Bearer " + testKey}))
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	checkListFolders(t, callTool(t, c, "list_folders", map[string]any{"include_counts": true}), 0)
}

func TestStdioListFolders(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	env.sendMail(t, "a@example.test", "one")
	env.sendMail(t, "b@example.test", "two")
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeStdio(context.Background(), env.tools.Server, serverIn, serverOut)
		_ = serverOut.Close()
	}()
	c := client.NewClient(mcptransport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))))
	initClient(t, c)
	checkListFolders(t, callTool(t, c, "list_folders", map[string]any{"include_counts": true}), 2)
	// EOF on stdin ends the server cleanly.
	_ = clientOut.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio() = %v, want nil on EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after EOF")
	}
}

func TestInProcessErrorShape(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	c, err := client.NewInProcessClient(env.tools.MCP())
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"include_counts": "yes"}, `INVALID_ARGUMENT: argument "include_counts" must be a boolean`},
		{map[string]any{"folder": "INBOX"}, `INVALID_ARGUMENT: unknown argument "folder" (list_folders takes: include_counts)`},
	}
	for _, tc := range cases {
		res := callTool(t, c, "list_folders", tc.args)
		if !res.IsError {
			t.Errorf("list_folders(%v) isError = false, want true", tc.args)
			continue
		}
		if got := res.Content[0].(mcp.TextContent).Text; got != tc.want {
			t.Errorf("list_folders(%v) text = %q, want %q", tc.args, got, tc.want)
		}
		var body struct {
			Error struct {
				Code      string `json:"code"`
				Message   string `json:"message"`
				Retryable *bool  `json:"retryable"`
			} `json:"error"`
		}
		structured(t, res, &body)
		if body.Error.Code != "INVALID_ARGUMENT" || body.Error.Message == "" || body.Error.Retryable == nil || *body.Error.Retryable {
			t.Errorf("structuredContent = %+v, want INVALID_ARGUMENT, message, retryable=false", body)
		}
	}
}

// TestToolsListGolden keeps the published schemas under review: a change to
// any tool's description, annotations or schemas shows in the golden file.
// Rewrite it with: go test ./tools -run Golden -update
func TestToolsListGolden(t *testing.T) {
	env := newTestEnv(t, tools.Options{Name: "email-mcp", Version: "test"})
	got := restGet(t, env, "/mcp/tools", testKey, http.StatusOK)
	var pretty strings.Builder
	var v any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&pretty)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	path := filepath.Join("testdata", "tools_list.golden.json")
	if *update {
		if err := os.WriteFile(path, []byte(pretty.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if pretty.String() != string(want) {
		t.Errorf("tools/list changed; review and run: go test ./tools -run Golden -update\n got: %s", pretty.String())
	}
	for _, tool := range v.(map[string]any)["tools"].([]any) {
		tm := tool.(map[string]any)
		ann, _ := tm["annotations"].(map[string]any)
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"} {
			if _, ok := ann[hint]; !ok {
				t.Errorf("tool %v lacks annotation %s", tm["name"], hint)
			}
		}
		if _, ok := tm["outputSchema"]; !ok {
			t.Errorf("tool %v lacks an outputSchema", tm["name"])
		}
	}
}

// TestRequiredArguments: every tool refuses a call without its required
// arguments, or with them null, before its handler runs, naming each one.
func TestRequiredArguments(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	c, err := client.NewInProcessClient(env.tools.MCP())
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range list.Tools {
		req := tool.InputSchema.Required
		if len(req) == 0 {
			continue
		}
		checked++
		want := "INVALID_ARGUMENT: " + req[0] + " is required"
		if len(req) > 1 {
			want = "INVALID_ARGUMENT: " + strings.Join(req[:len(req)-1], ", ") + " and " + req[len(req)-1] + " are required"
		}
		nulls := map[string]any{}
		for _, name := range req {
			nulls[name] = nil
		}
		for _, args := range []map[string]any{{}, nulls} {
			res := callTool(t, c, tool.Name, args)
			if got := res.Content[0].(mcp.TextContent).Text; !res.IsError || got != want {
				t.Errorf("%s(%v) = isError %v %q, want %q", tool.Name, args, res.IsError, got, want)
			}
		}
	}
	if checked < 10 {
		t.Errorf("%d tools with required arguments, want at least 10", checked)
	}
}
