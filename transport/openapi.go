package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// The API documentation (/openapi.json and /docs) is built from the tools
// that tools/list answers, each time it is asked for: a tool that another
// file registers appears in both without an edit here.

// toolDoc is one tool as tools/list describes it.
type toolDoc struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	} `json:"annotations"`
}

// listedTools asks the MCP server for tools/list, as GET /mcp/tools does.
func (s *endpoints) listedTools(ctx context.Context) ([]toolDoc, error) {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	var result any
	switch m := s.ts.MCP().HandleMessage(ctx, raw).(type) {
	case mcp.JSONRPCResponse:
		result = m.Result
	case *mcp.JSONRPCResponse:
		result = m.Result
	default:
		return nil, errors.New("tools/list gave no result")
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []toolDoc `json:"tools"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, err
	}
	return list.Tools, nil
}

// apiDoc is what the documentation says besides the tools.
type apiDoc struct {
	name, version string
	base          string // the server's URL, as the examples use it
	readOnly      bool
}

// schemaRef points at a schema of components.schemas.
func schemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// openAPI builds the OpenAPI 3.1 description of the REST endpoints.
func openAPI(doc apiDoc, list []toolDoc) map[string]any {
	schemas := baseSchemas()
	call := callPath(list, schemas)
	if doc.version == "" {
		doc.version = "dev"
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   doc.name + " REST API",
			"version": doc.version,
			"description": "The REST face of " + doc.name + ": the tools of tools/list, called over plain HTTP. " +
				"MCP clients use POST /mcp (Streamable HTTP) or GET /sse instead; the tools are the same." + readOnlyNote(doc),
		},
		"servers":  []any{map[string]any{"url": doc.base}},
		"security": []any{map[string]any{"apiKey": []string{}}, map[string]any{"bearer": []string{}}},
		"tags": []any{
			map[string]any{"name": "tools", "description": "The MCP tools over REST"},
			map[string]any{"name": "health", "description": "Liveness and readiness, without a key"},
		},
		"paths": paths(call),
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "MCP_API_KEY (X-API-Key wins over Authorization)"},
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "MCP_API_KEY as Authorization: Bearer"},
			},
			"schemas": schemas,
		},
	}
}

// callPath is POST /mcp/call, one body and one result per tool; it adds
// their schemas to schemas.
func callPath(list []toolDoc, schemas map[string]any) map[string]any {
	var calls, results []any
	examples := map[string]any{}
	for _, t := range list {
		calls = append(calls, schemaRef("call_"+t.Name))
		results = append(results, schemaRef("result_"+t.Name))
		schemas["call_"+t.Name] = callSchema(t)
		schemas["result_"+t.Name] = resultSchema(t)
		examples[t.Name] = map[string]any{"summary": t.Annotations.Title, "value": exampleCall(t)}
	}
	return map[string]any{
		"post": map[string]any{
			"operationId": "callTool",
			"summary":     "Call a tool",
			"description": "Runs one tool, as MCP's tools/call does, and answers its CallToolResult. " +
				"The body is one of the per-tool bodies below, told apart by params.name; the answer's " +
				"structuredContent follows that tool's output schema (its result, or {\"error\":{…}} with isError).",
			"tags":        []string{"tools"},
			"requestBody": map[string]any{"required": true, "content": jsonContent(map[string]any{"oneOf": calls}, examples)},
			"responses": withErrors(map[string]any{
				"200": response("The tool's CallToolResult; a tool failure is isError with a stable code", map[string]any{"anyOf": results}),
				"400": response("Not JSON, not tools/call, no params.name, an unknown tool, or arguments that are not an object", schemaRef("HTTPError")),
				"413": response("The body is larger than 4 MiB", nil),
			}),
		},
	}
}

// paths are the REST endpoints, call being POST /mcp/call.
func paths(call map[string]any) map[string]any {
	return map[string]any{
		"/mcp/tools": map[string]any{"get": map[string]any{
			"operationId": "listTools", "summary": "List the tools", "tags": []string{"tools"},
			"description": "The tools/list result: each tool's name, description, annotations, input and output schemas.",
			"responses":   withErrors(map[string]any{"200": response("The served tools", schemaRef("ToolList"))}),
		}},
		"/mcp/call": call,
		"/health": map[string]any{"get": map[string]any{
			"operationId": "health", "summary": "Liveness (no I/O)", "tags": []string{"health"}, "security": []any{},
			"responses": map[string]any{"200": response("The server runs", schemaRef("Health"))},
		}},
		"/ready": map[string]any{"get": map[string]any{
			"operationId": "ready", "summary": "Readiness: IMAP NOOP and SMTP EHLO, at most once a second", "tags": []string{"health"}, "security": []any{},
			"responses": map[string]any{
				"200": response("Every check passed", schemaRef("Ready")),
				"503": response("A check failed; checks names it with its code", schemaRef("Ready")),
			},
		}},
	}
}

func readOnlyNote(doc apiDoc) string {
	if doc.readOnly {
		return " This server is in read-only mode (MCP_READ_ONLY): the tools that change a mailbox or send mail are not served."
	}
	return ""
}

// jsonContent is an application/json content map.
func jsonContent(schema any, examples map[string]any) map[string]any {
	media := map[string]any{"schema": schema}
	if len(examples) > 0 {
		media["examples"] = examples
	}
	return map[string]any{"application/json": media}
}

func response(description string, schema any) map[string]any {
	r := map[string]any{"description": description}
	if schema != nil {
		r["content"] = jsonContent(schema, nil)
	}
	return r
}

// withErrors adds the answers of the key, Host, Origin and rate checks.
func withErrors(r map[string]any) map[string]any {
	r["401"] = response("Missing or wrong API key (UNAUTHORIZED)", schemaRef("HTTPError"))
	r["403"] = response("Host or Origin not allowed (FORBIDDEN_HOST, FORBIDDEN_ORIGIN)", schemaRef("HTTPError"))
	r["429"] = response("Over RATE_LIMIT_PER_MINUTE for this key; see Retry-After", schemaRef("HTTPError"))
	return r
}

// callSchema is the /mcp/call body of one tool.
func callSchema(t toolDoc) map[string]any {
	return map[string]any{
		"title":    "Call " + t.Name,
		"type":     "object",
		"required": []string{"params"},
		"properties": map[string]any{
			"method":  map[string]any{"const": "tools/call"},
			"jsonrpc": map[string]any{"const": "2.0"},
			"id":      map[string]any{"type": []string{"integer", "string"}},
			"params": map[string]any{
				"type":     "object",
				"required": []string{"name"},
				"properties": map[string]any{
					"name":      map[string]any{"const": t.Name},
					"arguments": rawOr(t.InputSchema, `{"type":"object"}`),
					"_meta":     map[string]any{"type": "object"},
				},
			},
		},
	}
}

// resultSchema is the CallToolResult of one tool.
func resultSchema(t toolDoc) map[string]any {
	return map[string]any{
		"title":    t.Name + " result",
		"type":     "object",
		"required": []string{"content"},
		"properties": map[string]any{
			"content": map[string]any{"type": "array", "items": schemaRef("TextContent")},
			"structuredContent": rawOr(t.OutputSchema, `{"anyOf":[{"type":"object"},`+
				`{"$ref":"#/components/schemas/ToolError"}]}`),
			"isError": map[string]any{"type": "boolean"},
		},
	}
}

func rawOr(raw json.RawMessage, fallback string) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(fallback)
	}
	return raw
}

// baseSchemas are the schemas that do not depend on the tools.
func baseSchemas() map[string]any {
	str, boolean := map[string]any{"type": "string"}, map[string]any{"type": "boolean"}
	var codes []mcpkit.Code
	for _, c := range mcpkit.Codes() {
		codes = append(codes, c.Code)
	}
	return map[string]any{
		"ToolList": map[string]any{"type": "object", "required": []string{"tools"}, "properties": map[string]any{
			"tools": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []string{"name", "inputSchema"},
				"properties": map[string]any{"name": str, "description": str, "inputSchema": map[string]any{"type": "object"},
					"outputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"type": "object"}},
			}},
		}},
		"TextContent": map[string]any{"type": "object", "required": []string{"type"}, "properties": map[string]any{
			"type": str, "text": str,
		}},
		"ToolError": map[string]any{"type": "object", "required": []string{"error"}, "properties": map[string]any{
			"error": map[string]any{"type": "object", "required": []string{"code", "message", "retryable"}, "properties": map[string]any{
				"code":    map[string]any{"type": "string", "description": "one of the stable codes; the list only grows", "examples": codes},
				"message": str, "retryable": boolean,
			}},
		}},
		"HTTPError": map[string]any{"type": "object", "required": []string{"error"}, "properties": map[string]any{
			"error": map[string]any{"type": "object", "properties": map[string]any{
				"code": map[string]any{"type": []string{"string", "integer"}}, "message": str,
			}},
		}},
		"Health": map[string]any{"type": "object", "required": []string{"status"}, "properties": map[string]any{
			"status": map[string]any{"const": "ok"}, "server": str, "version": str, "uptime_s": map[string]any{"type": "integer"},
		}},
		"Ready": map[string]any{"type": "object", "required": []string{"status", "checks"}, "properties": map[string]any{
			"status": map[string]any{"enum": []string{"ready", "unavailable"}},
			"checks": map[string]any{"type": "object", "additionalProperties": str, "description": "each check: ok, or CODE: message"},
		}},
	}
}

// exampleCall is a /mcp/call body for t with every required argument.
func exampleCall(t toolDoc) map[string]any {
	return map[string]any{"method": "tools/call", "params": map[string]any{"name": t.Name, "arguments": exampleArgs(t.InputSchema)}}
}

// exampleArgs gives each required argument of an input schema a value.
func exampleArgs(raw json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	_ = json.Unmarshal(raw, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		args[name] = exampleValue(name, s.Properties[name])
	}
	if len(s.Required) == 0 { // mark_email needs uid and a flag, yet requires none
		for name, v := range optionalExamples {
			if _, ok := s.Properties[name]; ok {
				args[name] = v
			}
		}
	}
	return args
}

// optionalExamples are given, when it declares them, to a tool that
// requires no argument, so that its example does something.
var optionalExamples = map[string]any{"uid": 1, "read": true, "label": "signup", "include_counts": true}

// argExamples are values for arguments whose type alone says too little.
// They work as they are on the sandbox (any address is a mailbox there);
// an argument that is not here gets a value from its schema.
var argExamples = map[string]any{
	"to": []any{"someone@example.com"}, "cc": []any{"someone@example.com"}, "bcc": []any{"someone@example.com"},
	"subject": "Hello from email-mcp", "body": "This mail was sent with the curl example of /docs.",
	"to_folder": "Archive", "folder": "INBOX", "uid": 1, "inbox_id": "signup",
	"attachment_paths": []any{"attachments/email/uploads/report.pdf"},
}

// exampleValue is argExamples[name], else one from the schema: its default,
// first enum value, minimum, or a value of its (first) type.
func exampleValue(name string, p map[string]any) any {
	if v, ok := argExamples[name]; ok && fitsType(v, p["type"]) {
		return v
	}
	if v, ok := p["default"]; ok {
		return v
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := p["type"].(string)
	if ts, ok := p["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "integer", "number":
		if m, ok := p["minimum"]; ok {
			return m
		}
		return 1
	case "boolean":
		return true
	case "array":
		item, _ := p["items"].(map[string]any)
		return []any{exampleValue("", item)}
	case "object":
		return map[string]any{}
	}
	return "example"
}

// hostPattern is a Host header that may go into a shell command as it is.
var hostPattern = regexp.MustCompile(`^[A-Za-z0-9._\-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`)

// docBase is the server's URL for the documentation's examples: publicURL
// (MCP_BASE_URL) when set, else the URL the request came to.
func docBase(r *http.Request, publicURL, basePath string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/")
	}
	host := r.Host
	if !hostPattern.MatchString(host) {
		host = "localhost:8420"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host + strings.TrimRight(basePath, "/")
}

// renderOpenAPI is the /openapi.json body for the server at base.
func (s *endpoints) renderOpenAPI(ctx context.Context, base string) ([]byte, error) {
	list, err := s.listedTools(ctx)
	if err != nil {
		return nil, err
	}
	info := s.ts.Info()
	doc := apiDoc{name: info.Name, version: info.Version, base: base, readOnly: info.ReadOnly}
	return json.Marshal(openAPI(doc, list))
}

// pageCache keeps the last page rendered, by the base URL it shows: the
// served tools do not change while the server runs, and /docs and
// /openapi.json need no key, so a client without one should not make the
// server render them again and again.
type pageCache struct {
	render func(ctx context.Context, base string) ([]byte, error)
	mu     sync.Mutex
	base   string
	body   []byte
}

func (c *pageCache) get(ctx context.Context, base string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.body != nil && c.base == base {
		return c.body, nil
	}
	body, err := c.render(ctx, base)
	if err != nil {
		return nil, err
	}
	c.base, c.body = base, body
	return body, nil
}

// docsHandler answers GET /docs or GET /openapi.json from c, with header.
func docsHandler(c *pageCache, publicURL, basePath string, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := c.get(r.Context(), docBase(r, publicURL, basePath))
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, errBody("INTERNAL", "the API documentation is not available"))
			return
		}
		h := w.Header()
		for k, v := range header {
			h.Set(k, v)
		}
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	}
}

// fitsType reports whether v is of the schema type t (a name or a list of
// names; none fits anything): rename_folder's "to" is a folder name, not
// send_email's list of addresses.
func fitsType(v any, t any) bool {
	var kind string
	switch v.(type) {
	case string:
		kind = "string"
	case []any:
		kind = "array"
	case int, float64:
		kind = "number"
	case bool:
		kind = "boolean"
	}
	match := func(name string) bool {
		return name == kind || name == "integer" && kind == "number"
	}
	switch t := t.(type) {
	case string:
		return match(t)
	case []any:
		for _, n := range t {
			if s, _ := n.(string); match(s) {
				return true
			}
		}
		return false
	}
	return true
}
