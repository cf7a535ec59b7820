package mcpkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Call runs the tool name with args as POST /mcp/call would, with ctx's
// caller (auth.KeyID) as the caller. It returns the result's
// structuredContent and whether it is an error result ({"error":{…}}). A
// tool this server does not serve is an error result too; err is only a
// protocol fault.
func (s *Server) Call(ctx context.Context, name string, args map[string]any) (json.RawMessage, bool, error) {
	if sp, ok := s.hidden[name]; ok && s.opts.ReadOnly && sp.ChangesMail {
		te := Errorf(CodeReadOnly, "%s is not available: the server is in read-only mode", sp.Name)
		b, err := json.Marshal(map[string]any{"error": map[string]any{"code": te.Code, "message": te.Message, "retryable": false}})
		return b, true, err
	}
	if args == nil {
		args = map[string]any{}
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, false, err
	}
	var result any
	switch m := s.mcp.HandleMessage(ctx, raw).(type) {
	case mcp.JSONRPCResponse:
		result = m.Result
	case *mcp.JSONRPCResponse:
		result = m.Result
	case mcp.JSONRPCError:
		return nil, false, fmt.Errorf("mcpkit: call %s: %s", name, m.Error.Message)
	case *mcp.JSONRPCError:
		return nil, false, fmt.Errorf("mcpkit: call %s: %s", name, m.Error.Message)
	default:
		return nil, false, fmt.Errorf("mcpkit: call %s: no response", name)
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, false, err
	}
	var out struct {
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, false, err
	}
	return out.Structured, out.IsError, nil
}
