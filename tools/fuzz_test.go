package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools"
)

// fuzzTools are the tools FuzzToolCall drives: every tool except the waits,
// whose decoding FuzzBindArgs covers (a wait lasts at least a second).
var fuzzTools = []string{
	"list_folders", "search_emails", "read_email", "mark_email", "move_email", "send_email", "reply_email",
	"download_attachment", "send_email_with_attachments", "create_inbox", "list_inboxes", "list_messages",
	"get_latest", "send_test_code", "delete_inbox",
	"delete_email", "create_folder", "rename_folder", "delete_folder",
	"get_thread", "forward_email",
	"save_draft", "update_draft", "send_draft", "delete_draft",
}

// FuzzToolCall sends arbitrary arguments to every tool through the MCP
// server, on a sandbox holding a few messages. Properties: every call ends
// (no hang), a valid JSON value always gets a tool result (never a JSON-RPC
// error), a failure is never INTERNAL (bad input is the caller's, with a code
// that says so), and no answer shows the mailbox password.
func FuzzToolCall(f *testing.F) {
	seeds := map[string][]string{
		"list_folders":                {`{"include_counts":true}`, `{"include_counts":"yes"}`},
		"search_emails":               {`{"subject":"hi","since":"2024-01-02","limit":5}`, `{"folder":"Nope"}`, `{"text":"\u00e9t\u00e9","unread":true}`, `{"cursor":"x"}`, `{"before":"2024-13-45"}`},
		"read_email":                  {`{"uid":1}`, `{"uid":"msg_1_1","format":"both","max_chars":10,"offset":3}`, `{"uid":-1}`, `{"uid":1,"folder":"a\r\nb"}`},
		"mark_email":                  {`{"uid":1,"flagged":true}`, `{"uids":[1,2,"3"],"read":false}`},
		"move_email":                  {`{"uid":1,"to_folder":"Archive"}`, `{"uid":2,"to_folder":""}`},
		"send_email":                  {`{"to":"a@example.test","subject":"s","body":"b"}`, `{"to":["x"],"subject":"s\r\nBcc: y@z","body":"b"}`},
		"reply_email":                 {`{"uid":1,"body":"thanks","reply_all":true}`},
		"download_attachment":         {`{"uid":1,"attachment_index":0,"filename_override":"../../etc/passwd"}`},
		"send_email_with_attachments": {`{"to":"a@example.test","subject":"s","body":"b","attachment_paths":["uploads/../../.env"]}`},
		"create_inbox":                {`{"label":"signup"}`, `{"label":"\u202egnp.exe"}`},
		"list_inboxes":                {`{"limit":3}`, `{"cursor":"zzz"}`},
		"list_messages":               {`{"inbox_id":"signup","has_otp":true}`},
		"get_latest":                  {`{"inbox_id":"nope"}`},
		"send_test_code":              {`{"inbox_id":"x"}`},
		"delete_inbox":                {`{"inbox_id":"x"}`},
		"delete_email":                {`{"uid":1,"dry_run":true}`, `{"uids":[1,"msg_1_2"],"permanent":true}`, `{"uid":1,"folder":"Trash"}`},
		"create_folder":               {`{"name":"Entw\u00fcrfe","parent":"INBOX"}`, `{"name":"a//b"}`, `{"name":"*"}`},
		"rename_folder":               {`{"from":"Archive","to":"\u65e5\u672c"}`, `{"from":"INBOX","to":"x"}`},
		"delete_folder":               {`{"name":"email-mcp-inboxes","force":true}`, `{"name":"Sent"}`},
		"get_thread":                  {`{"uid":1,"limit":2}`, `{"uid":"msg_1_1","folder":"Sent"}`, `{"uid":1,"limit":0}`},
		"forward_email":               {`{"uid":1,"to":"a@example.test","mode":"attachment"}`, `{"uid":1,"to":["x"],"body":"fyi","mode":"inline"}`},
		"save_draft":                  {`{"to":"a@example.test","subject":"s","bcc":"b@example.test"}`, `{"reply_to_uid":1,"folder":"INBOX"}`, `{"folder":"INBOX"}`},
		"update_draft":                {`{"draft_id":1,"body":"b"}`, `{"draft_id":"msg_1_1","attachment_paths":["uploads/../x"]}`},
		"send_draft":                  {`{"draft_id":1}`, `{"draft_id":"msg_0_0"}`},
		"delete_draft":                {`{"draft_id":1}`, `{"draft_id":-1}`},
	}
	for i, name := range fuzzTools {
		for _, s := range append(seeds[name], `{}`, `null`, `[]`, `{"uid":1e300}`) {
			f.Add(uint8(i), []byte(s))
		}
	}
	env := newTestEnv(f, tools.Options{})
	for i := range 3 {
		env.sendMail(f, "agent@sandbox.localhost", "fuzz seed "+string(rune('a'+i)))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := fuzzTools[int(which)%len(fuzzTools)]
		var decoded any
		if json.Unmarshal(args, &decoded) != nil {
			return // not JSON, or a number beyond float64: a protocol error, not a tool call
		}
		req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + string(args) + `}}`
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done := make(chan mcp.JSONRPCMessage, 1)
		go func() { done <- env.tools.MCP().HandleMessage(ctx, []byte(req)) }()
		var resp mcp.JSONRPCMessage
		select {
		case resp = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s(%s) did not return", name, args)
		}
		checkFuzzAnswer(t, name, args, resp)
	})
}

// checkFuzzAnswer asserts FuzzToolCall's properties of one answer.
func checkFuzzAnswer(t *testing.T, name string, args []byte, resp mcp.JSONRPCMessage) {
	t.Helper()
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Error  *json.RawMessage `json:"error"`
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatalf("%s(%s): answer %s: %v", name, args, b, err)
	}
	if msg.Error != nil {
		t.Fatalf("%s(%s) = JSON-RPC error %s, want a tool result", name, args, *msg.Error)
	}
	if code := msg.Result.StructuredContent.Error.Code; msg.Result.IsError && (code == "INTERNAL" || code == "") {
		t.Fatalf("%s(%s) = %s, want a specific code", name, args, b)
	}
	if strings.Contains(string(b), "pw-for-tests") {
		t.Fatalf("%s(%s) shows the password: %s", name, args, b)
	}
}
