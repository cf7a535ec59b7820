package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/tools"
)

// TestStructuredContentMatchesOutputSchema checks every tool's results, of
// success and of failure, against the outputSchema tools/list declares, as
// the TypeScript SDK's callTool does (it throws on a mismatch, isError or not).
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	env.sendMail(t, "agent@sandbox.localhost", "schema check")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, err := e.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range list.Tools {
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var decl struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &decl); err != nil || len(decl.OutputSchema) == 0 {
			t.Fatalf("%s has no outputSchema (%v)", tool.Name, err)
		}
		schemas[tool.Name] = compileSchema(t, tool.Name, decl.OutputSchema)
	}
	calls := []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"list_folders", map[string]any{"include_counts": true}, false},
		{"search_emails", map[string]any{"limit": 1}, false},
		{"search_emails", map[string]any{"folder": "No such folder"}, true},
		{"read_email", map[string]any{"uid": 1}, false},
		{"read_email", map[string]any{"uid": 987654}, true},
		{"mark_email", map[string]any{"uid": 1, "flagged": true}, false},
		{"move_email", map[string]any{"uid": 987654, "to_folder": "Archive"}, true},
		{"delete_email", map[string]any{"uid": 1, "dry_run": true}, false},
		{"delete_email", map[string]any{"uid": 987654}, true},
		{"create_folder", map[string]any{"name": "Schema Ö"}, false},
		{"rename_folder", map[string]any{"from": "Schema Ö", "to": "Schema Ö 2"}, false},
		{"delete_folder", map[string]any{"name": "Schema Ö 2"}, false},
		{"delete_folder", map[string]any{"name": "INBOX"}, true},
		{"download_attachment", map[string]any{"uid": 1, "attachment_index": 3}, true},
		{"send_email", map[string]any{"to": "a@example.test", "subject": "s", "body": "b"}, false},
		{"send_email", map[string]any{"to": "a@example.test", "subject": "s\r\nBcc: x@y.z", "body": "b"}, true},
		{"reply_email", map[string]any{"uid": 1, "body": "thanks"}, false},
		{"get_thread", map[string]any{"uid": 1}, false},
		{"get_thread", map[string]any{"uid": 987654}, true},
		{"forward_email", map[string]any{"uid": 1, "to": "a@example.test", "mode": "attachment"}, false},
		{"forward_email", map[string]any{"uid": 1, "to": "a@example.test", "mode": "digest"}, true},
		{"send_email", map[string]any{"to": "a@example.test", "subject": "s", "body": "b", "idempotency_key": "schema-1"}, false},
		{"send_email", map[string]any{"to": "a@example.test", "subject": "s", "body": "b", "idempotency_key": "schema-1"}, false}, // replayed
		{"reply_email", map[string]any{"uid": 1, "body": "again", "idempotency_key": "schema-2"}, false},
		{"reply_email", map[string]any{"uid": 1, "body": "again", "idempotency_key": "schema-2"}, false}, // replayed
		{"send_email_with_attachments", map[string]any{"to": "a@example.test", "subject": "s", "body": "b", "attachment_paths": []any{"uploads/../.env"}}, true},
		// The sandbox's Drafts folder starts empty: the drafts get UIDs 1, 2, ...
		{"save_draft", map[string]any{"to": "a@example.test", "subject": "draft"}, false},
		{"update_draft", map[string]any{"draft_id": 1, "to": "a@example.test", "subject": "draft 2"}, false},
		{"send_draft", map[string]any{"draft_id": 2}, false},
		{"send_draft", map[string]any{"draft_id": 2}, true},
		{"reply_email", map[string]any{"uid": 1, "body": "later", "draft": true}, false},
		{"delete_draft", map[string]any{"draft_id": 3}, false},
		{"delete_draft", map[string]any{"draft_id": 3}, true},
		{"update_draft", map[string]any{"draft_id": 987654}, true},
		{"create_inbox", map[string]any{"label": "schema"}, false},
		{"list_inboxes", map[string]any{}, false},
		{"list_messages", map[string]any{"inbox_id": "schema"}, false},
		{"get_latest", map[string]any{"inbox_id": "schema"}, false},
		{"wait_for_email", map[string]any{"inbox_id": "schema", "timeout": 0.2}, true},
		{"send_test_code", map[string]any{"inbox_id": "schema"}, false},
		{"wait_for_otp", map[string]any{"inbox_id": "schema", "since": "2000-01-01T00:00:00Z"}, false},
		{"wait_for_link", map[string]any{"inbox_id": "schema", "timeout": 0.2}, true},
		{"delete_inbox", map[string]any{"inbox_id": "schema"}, false},
		{"get_latest", map[string]any{"inbox_id": "schema"}, true},        // deleted: INBOX_NOT_FOUND
		{"delete_email", map[string]any{"uids": []any{1, 987654}}, false}, // last: the tools above read uid 1
	}
	created := "" // "schema" stands for the inbox_id create_inbox returned
	seen := map[string]bool{}
	for _, c := range calls {
		if c.args["inbox_id"] == "schema" {
			c.args["inbox_id"] = created
		}
		res := callTool(t, e.client, c.tool, c.args)
		if c.tool == "create_inbox" {
			var in inboxtools.CreateInboxResult
			structured(t, res, &in)
			created = in.InboxID
		}
		if res.IsError != c.isError {
			t.Errorf("%s(%v): isError = %v, want %v: %v", c.tool, c.args, res.IsError, c.isError, res.Content)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.tool].Validate(v); err != nil {
			t.Errorf("%s(%v): structuredContent %s does not match its outputSchema: %v", c.tool, c.args, b, err)
		}
		seen[c.tool] = true
	}
	for name := range schemas {
		if !seen[name] {
			t.Errorf("%s is not checked", name)
		}
	}
}

// compileSchema compiles the JSON Schema raw of the tool name.
func compileSchema(t *testing.T, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", name, err)
	}
	return s
}
