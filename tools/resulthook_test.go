package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// TestResultHook: a successful call hands its encoded result to the
// transport's hook, which may answer in its place; an error result never
// reaches it, and a hook that answers nil (or none) leaves the result as it
// was.
func TestResultHook(t *testing.T) {
	ts, err := tools.New(tools.Deps{Mail: &toolstest.BenchMail{Page: toolstest.BenchPage(3)}}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	plain := callTool(t, c, "search_emails", map[string]any{"limit": 3})
	text := plain.Content[0].(mcp.TextContent).Text

	var got [][]byte
	stand := mcp.NewToolResultText("placeholder")
	answer := stand
	ts.SetResultHook(func(_ context.Context, result []byte) *mcp.CallToolResult {
		got = append(got, result)
		return answer
	})
	res := callTool(t, c, "search_emails", map[string]any{"limit": 3})
	if len(got) != 1 || string(got[0]) != text || !json.Valid(got[0]) {
		t.Fatalf("hook got %q, want the result's JSON %q once", got, text)
	}
	if len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "placeholder" {
		t.Errorf("result with a hook that answers = %+v, want the hook's", res.Content)
	}
	if _, err := tryCallTool(c, "read_email", map[string]any{"uid": "not-a-uid"}); err != nil || len(got) != 1 {
		t.Errorf("an error result: call err %v, hook called %d times, want once in all", err, len(got))
	}
	answer = nil
	if res := callTool(t, c, "search_emails", map[string]any{"limit": 3}); res.Content[0].(mcp.TextContent).Text != text {
		t.Errorf("result with a hook that answers nil = %+v, want the plain one", res.Content)
	}
	ts.SetResultHook(nil)
	if res := callTool(t, c, "search_emails", map[string]any{"limit": 3}); res.Content[0].(mcp.TextContent).Text != text || len(got) != 2 {
		t.Errorf("without a hook: %+v (hook called %d times), want the plain result and no call", res.Content, len(got))
	}
}
