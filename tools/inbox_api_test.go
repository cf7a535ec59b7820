package tools_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/tools"
)

// errorBody is the structuredContent of a failed call.
type errorBody struct {
	Error struct {
		Code              string   `json:"code"`
		Retryable         bool     `json:"retryable"`
		RetryAfterSeconds *float64 `json:"retry_after_seconds"`
	} `json:"error"`
}

// TestUnknownInbox: a well-formed inbox id that names no inbox is
// INBOX_NOT_FOUND (not retryable) from every tool that takes one: get_latest
// answered {"message": null}, the waits waited their whole timeout and a
// second delete_inbox answered {"deleted": 0}, as if the inbox were empty.
func TestUnknownInbox(t *testing.T) {
	e := newInboxEnv(t)
	known := e.create(t, "known")
	unknown := "nobody-0badcafe"
	byAddress := strings.Replace(known.Address, known.InboxID, unknown, 1)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_latest", map[string]any{"inbox_id": unknown}},
		{"get_latest", map[string]any{"inbox_id": byAddress}},
		{"list_messages", map[string]any{"inbox_id": unknown}},
		{"wait_for_email", map[string]any{"inbox_id": unknown, "timeout": 2}},
		{"wait_for_otp", map[string]any{"inbox_id": unknown, "timeout": 2}},
		{"wait_for_link", map[string]any{"inbox_id": unknown, "timeout": 2}},
		{"send_test_code", map[string]any{"inbox_id": unknown}},
		{"delete_inbox", map[string]any{"inbox_id": unknown}},
	}
	for _, c := range calls {
		e.wantError(t, c.tool, c.args, tools.CodeInboxNotFound)
		var body errorBody
		structured(t, callTool(t, e.client, c.tool, c.args), &body)
		if body.Error.Retryable {
			t.Errorf("%s(%v) is retryable: an inbox that does not exist will not start to", c.tool, c.args)
		}
	}
	// Malformed ids stay INVALID_ARGUMENT, before any I/O.
	e.wantError(t, "get_latest", map[string]any{"inbox_id": "../x"}, tools.CodeInvalidArgument)

	var latest tools.GetLatestResult
	e.call(t, "get_latest", map[string]any{"inbox_id": known.InboxID}, &latest)
	if latest.Message != nil {
		t.Errorf("get_latest of a new inbox = %+v, want message null", latest)
	}
	var del tools.DeleteInboxResult
	e.call(t, "delete_inbox", map[string]any{"inbox_id": known.InboxID}, &del)
	e.wantError(t, "delete_inbox", map[string]any{"inbox_id": known.InboxID}, tools.CodeInboxNotFound)
	e.wantError(t, "get_latest", map[string]any{"inbox_id": known.Address}, tools.CodeInboxNotFound)
}

// TestUnknownInboxOtherReplica: existence lives in the mailbox: an inbox
// created through one server is known to a second one over the same
// account, and deleted through it, unknown to the first after that.
func TestUnknownInboxOtherReplica(t *testing.T) {
	a := newInboxEnv(t)
	b := newInboxEnvOn(t, a.acct, a.base)
	in := a.create(t, "replica")
	var list tools.ListMessagesResult
	b.call(t, "list_messages", map[string]any{"inbox_id": in.InboxID}, &list)
	b.call(t, "delete_inbox", map[string]any{"inbox_id": in.InboxID}, nil)
	b.wantError(t, "get_latest", map[string]any{"inbox_id": in.InboxID}, tools.CodeInboxNotFound)
}

// TestUnknownInboxSandboxSubstring: in the sandbox an inbox address is
// tag@domain, and IMAP SEARCH TO matches substrings: the tail of a created
// tag (its random part) must not pass for an inbox of its own.
func TestUnknownInboxSandboxSubstring(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := &mailEnv{client: inProcessClient(t, env.tools)}
	var in tools.CreateInboxResult
	e.call(t, "create_inbox", map[string]any{"label": "sub"}, &in)
	tail := strings.TrimPrefix(in.InboxID, "sub-")
	e.wantError(t, "get_latest", map[string]any{"inbox_id": tail}, tools.CodeInboxNotFound)
	e.wantError(t, "get_latest", map[string]any{"inbox_id": "b-" + tail}, tools.CodeInboxNotFound)
	e.call(t, "get_latest", map[string]any{"inbox_id": in.Address}, &tools.GetLatestResult{})
}

// TestFilterValidation: every text filter of every tool goes through one
// validation: a NUL in list_messages' sender or subject_contains reached
// IMAP SEARCH and came back INTERNAL (retryable), where search_emails said
// INVALID_ARGUMENT; in wait_for_email it made the wait wait for nothing.
func TestFilterValidation(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "filters")
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_messages", map[string]any{"inbox_id": in.InboxID, "sender": "a\x00b"}},
		{"list_messages", map[string]any{"inbox_id": in.InboxID, "subject_contains": "code\x00"}},
		{"list_messages", map[string]any{"inbox_id": in.InboxID, "subject_contains": strings.Repeat("x", 1001)}},
		{"wait_for_email", map[string]any{"inbox_id": in.InboxID, "subject_contains": "code\x00", "timeout": 2}},
		{"wait_for_email", map[string]any{"inbox_id": in.InboxID, "sender": "a\x01b", "timeout": 2}},
		{"search_emails", map[string]any{"from": "a\x00b"}},
		{"search_emails", map[string]any{"subject": "code\x00"}},
	}
	for _, c := range calls {
		msg := e.wantError(t, c.tool, c.args, tools.CodeInvalidArgument)
		if !strings.Contains(msg, "plain text") {
			t.Errorf("%s error = %q, want the one filter message (plain text...)", c.tool, msg)
		}
	}
}
