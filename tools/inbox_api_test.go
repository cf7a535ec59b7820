package tools_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/mcpkit"
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
		e.wantError(t, c.tool, c.args, mcpkit.CodeInboxNotFound)
		var body errorBody
		structured(t, callTool(t, e.client, c.tool, c.args), &body)
		if body.Error.Retryable {
			t.Errorf("%s(%v) is retryable: an inbox that does not exist will not start to", c.tool, c.args)
		}
	}
	// Malformed ids stay INVALID_ARGUMENT, before any I/O.
	e.wantError(t, "get_latest", map[string]any{"inbox_id": "../x"}, mcpkit.CodeInvalidArgument)

	var latest inboxtools.GetLatestResult
	e.call(t, "get_latest", map[string]any{"inbox_id": known.InboxID}, &latest)
	if latest.Message != nil {
		t.Errorf("get_latest of a new inbox = %+v, want message null", latest)
	}
	var del inboxtools.DeleteInboxResult
	e.call(t, "delete_inbox", map[string]any{"inbox_id": known.InboxID}, &del)
	e.wantError(t, "delete_inbox", map[string]any{"inbox_id": known.InboxID}, mcpkit.CodeInboxNotFound)
	e.wantError(t, "get_latest", map[string]any{"inbox_id": known.Address}, mcpkit.CodeInboxNotFound)
}

// TestUnknownInboxOtherReplica: existence lives in the mailbox: an inbox
// created through one server is known to a second one over the same
// account, and deleted through it, unknown to the first after that.
func TestUnknownInboxOtherReplica(t *testing.T) {
	a := newInboxEnv(t)
	b := newInboxEnvOn(t, a.acct, a.base)
	in := a.create(t, "replica")
	var list inboxtools.ListMessagesResult
	b.call(t, "list_messages", map[string]any{"inbox_id": in.InboxID}, &list)
	b.call(t, "delete_inbox", map[string]any{"inbox_id": in.InboxID}, nil)
	b.wantError(t, "get_latest", map[string]any{"inbox_id": in.InboxID}, mcpkit.CodeInboxNotFound)
}

// TestUnknownInboxSandboxSubstring: in the sandbox an inbox address is
// tag@domain, and IMAP SEARCH TO matches substrings: the tail of a created
// tag (its random part) must not pass for an inbox of its own.
func TestUnknownInboxSandboxSubstring(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := &mailEnv{client: inProcessClient(t, env.tools)}
	var in inboxtools.CreateInboxResult
	e.call(t, "create_inbox", map[string]any{"label": "sub"}, &in)
	tail := strings.TrimPrefix(in.InboxID, "sub-")
	e.wantError(t, "get_latest", map[string]any{"inbox_id": tail}, mcpkit.CodeInboxNotFound)
	e.wantError(t, "get_latest", map[string]any{"inbox_id": "b-" + tail}, mcpkit.CodeInboxNotFound)
	e.call(t, "get_latest", map[string]any{"inbox_id": in.Address}, &inboxtools.GetLatestResult{})
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
		msg := e.wantError(t, c.tool, c.args, mcpkit.CodeInvalidArgument)
		if !strings.Contains(msg, "plain text") {
			t.Errorf("%s error = %q, want the one filter message (plain text...)", c.tool, msg)
		}
	}
}

// TestNumericStrings: numbers given as numeric strings ("30", "0.5") are
// taken, by the destination field's kind, for every tool; a string that is
// not a number is INVALID_ARGUMENT naming the argument.
func TestNumericStrings(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "strings")
	e.deliver(t, in.Address, "First", "nothing here")
	e.deliver(t, in.Address, "Your code", "Your verification code is 583920.")

	var list inboxtools.ListMessagesResult
	e.call(t, "list_messages", map[string]any{"inbox_id": in.InboxID, "limit": "1"}, &list)
	if len(list.Messages) != 1 || list.Total != 2 {
		t.Errorf("list_messages(limit \"1\") = %+v, want 1 of 2", list)
	}
	var otp inboxtools.WaitOTPResult
	e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": "2000-01-01T00:00:00Z", "timeout": " 5 ", "min_confidence": "0.5"}, &otp)
	if otp.OTP != "583920" {
		t.Errorf("wait_for_otp(timeout \"5\", min_confidence \"0.5\") = %+v", otp)
	}
	var search tools.SearchResult
	e.call(t, "search_emails", map[string]any{"limit": "1"}, &search)
	if len(search.Messages) != 1 {
		t.Errorf("search_emails(limit \"1\") = %d messages, want 1", len(search.Messages))
	}
	var inboxes inboxtools.ListInboxesResult
	e.call(t, "list_inboxes", map[string]any{"limit": "1.0"}, &inboxes)
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": "1", "max_chars": "5", "offset": "0"}, &read)
	if len([]rune(read.BodyText)) > 5 {
		t.Errorf("read_email(max_chars \"5\") body = %q", read.BodyText)
	}
	for _, c := range []struct {
		tool, arg string
		args      map[string]any
	}{
		{"list_messages", "limit", map[string]any{"inbox_id": in.InboxID, "limit": "ten"}},
		{"list_messages", "limit", map[string]any{"inbox_id": in.InboxID, "limit": "1.5"}},
		{"wait_for_otp", "timeout", map[string]any{"inbox_id": in.InboxID, "timeout": "soon"}},
		{"wait_for_otp", "min_confidence", map[string]any{"inbox_id": in.InboxID, "min_confidence": "0x1p-1"}},
		{"wait_for_email", "timeout", map[string]any{"inbox_id": in.InboxID, "timeout": ""}},
		{"search_emails", "limit", map[string]any{"limit": "NaN"}},
	} {
		if msg := e.wantError(t, c.tool, c.args, mcpkit.CodeInvalidArgument); !strings.Contains(msg, `"`+c.arg+`"`) {
			t.Errorf("%s(%v) error = %q, want it to name %q", c.tool, c.args, msg, c.arg)
		}
	}
}

// TestHasMore: every paged result says has_more beside next_cursor: true
// with a cursor, false (present, not omitted) on the last page.
func TestHasMore(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "pages")
	e.create(t, "pages-2")
	for _, s := range []string{"one", "two", "three"} {
		e.deliver(t, in.Address, s, "hello")
	}
	pages := []struct {
		tool  string
		args  map[string]any
		first int // messages or inboxes on the first page
	}{
		{"list_inboxes", map[string]any{"limit": 1}, 1},
		{"list_messages", map[string]any{"inbox_id": in.InboxID, "limit": 2}, 2},
		{"search_emails", map[string]any{"limit": 2}, 2},
	}
	for _, p := range pages {
		var page struct {
			NextCursor *string `json:"next_cursor"`
			HasMore    *bool   `json:"has_more"`
		}
		structured(t, e.call(t, p.tool, p.args, nil), &page)
		if page.HasMore == nil || !*page.HasMore || page.NextCursor == nil {
			t.Errorf("%s(%v) first page: has_more %v, next_cursor %v; want true and a cursor", p.tool, p.args, page.HasMore, page.NextCursor)
			continue
		}
		for range 10 { // bounded: the last page comes within 10
			p.args["cursor"] = *page.NextCursor
			page.NextCursor, page.HasMore = nil, nil
			structured(t, e.call(t, p.tool, p.args, nil), &page)
			if page.HasMore == nil || *page.HasMore != (page.NextCursor != nil) {
				t.Fatalf("%s(%v): has_more %v with next_cursor %v", p.tool, p.args, page.HasMore, page.NextCursor)
			}
			if !*page.HasMore {
				break
			}
		}
		if page.NextCursor != nil {
			t.Errorf("%s: no last page within 10", p.tool)
		}
	}
}
