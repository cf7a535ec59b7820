package transport

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// TestRESTCallReadOnly: /mcp/call of a tool that read-only mode hides
// answers the READ_ONLY result (tools.Server.Refusal); a tool that is not
// served for another reason (its toolset is off) is an unknown tool.
func TestRESTCallReadOnly(t *testing.T) {
	ts, err := tools.New(tools.Deps{Mail: &toolstest.BenchMail{Page: toolstest.BenchPage(5)}},
		tools.Options{ReadOnly: true, Toolsets: []string{tools.ToolsetInbox}})
	if err != nil {
		t.Fatal(err)
	}
	url := serveBench(t, ts)
	for _, tc := range []struct {
		tool string
		code int
		want string
	}{
		{"move_email", http.StatusOK, `READ_ONLY: move_email is not available: the server is in read-only mode`},
		{"search_emails", http.StatusBadRequest, `"error"`}, // toolset off
		{"nonexistent_tool", http.StatusBadRequest, `"error"`},
	} {
		body := `{"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":{}}}`
		req, err := http.NewRequest(http.MethodPost, url+"/mcp/call", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", benchKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(got), tc.want) {
			t.Errorf("POST /mcp/call %s = %d %.300s, want %d with %q", tc.tool, resp.StatusCode, got, tc.code, tc.want)
		}
	}
}
