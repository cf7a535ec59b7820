package transport

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// handleRESTTools answers GET /mcp/tools with {"tools":[...]}, exactly the
// tools/list result.
func (s *endpoints) handleRESTTools(w http.ResponseWriter, r *http.Request) {
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
	s.answerREST(w, r, req)
}

// restCall is the seed's /mcp/call body. jsonrpc and id are optional.
type restCall struct {
	Method string `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      map[string]any `json:"_meta,omitempty"`
	} `json:"params"`
}

// handleRESTCall answers POST /mcp/call with the CallToolResult JSON.
func (s *endpoints) handleRESTCall(w http.ResponseWriter, r *http.Request) {
	var body restCall
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "body must be JSON: {\"method\":\"tools/call\",\"params\":{\"name\":...,\"arguments\":{...}}}"))
		return
	}
	if body.Method != "" && body.Method != "tools/call" {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "method must be tools/call"))
		return
	}
	if body.Params.Name == "" {
		writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "params.name is required"))
		return
	}
	if res := s.ts.Refusal(body.Params.Name); res != nil {
		writeJSON(w, http.StatusOK, res)
		return
	}
	params := map[string]any{"name": body.Params.Name, "arguments": body.Params.Arguments}
	if body.Params.Meta != nil {
		params["_meta"] = body.Params.Meta
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
	s.answerREST(w, r, req)
}

// answerREST runs one JSON-RPC request through the MCP server (no session:
// the REST endpoints are stateless) and writes its result, or its JSON-RPC
// error with a 4xx/5xx status.
func (s *endpoints) answerREST(w http.ResponseWriter, r *http.Request, req map[string]any) {
	raw, _ := json.Marshal(req)
	resp := s.ts.MCP().HandleMessage(r.Context(), raw)
	switch m := resp.(type) {
	case mcp.JSONRPCResponse:
		writeJSON(w, http.StatusOK, m.Result)
	case *mcp.JSONRPCResponse:
		writeJSON(w, http.StatusOK, m.Result)
	case mcp.JSONRPCError:
		writeJSON(w, restStatus(m.Error.Code), map[string]any{"error": m.Error})
	case *mcp.JSONRPCError:
		writeJSON(w, restStatus(m.Error.Code), map[string]any{"error": m.Error})
	default:
		writeJSON(w, http.StatusInternalServerError, errBody("INTERNAL", "no response"))
	}
}

func restStatus(code int) int {
	switch code {
	case mcp.INVALID_PARAMS, mcp.INVALID_REQUEST, mcp.PARSE_ERROR, mcp.METHOD_NOT_FOUND:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func errBody(code, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
