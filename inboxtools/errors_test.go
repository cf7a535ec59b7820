package inboxtools

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// TestInboxErrorCodes: every kind of inbox error becomes its stable code,
// with inbox's message and the details the model reads; other errors (a
// folder's among them, which the server's Classify names: tools'
// TestClassifyInboxFolder) pass untouched.
func TestInboxErrorCodes(t *testing.T) {
	cause := errors.New("server text")
	tests := []struct {
		err     error
		code    mcpkit.Code
		msg     string
		details map[string]any
	}{
		{&inbox.Error{Kind: inbox.Invalid, Msg: "inbox_id is required"}, mcpkit.CodeInvalidArgument, "inbox_id is required", nil},
		{&inbox.Error{Kind: inbox.NotFound, Msg: "there is no test inbox"}, mcpkit.CodeInboxNotFound, "there is no test inbox", nil},
		{&inbox.Error{Kind: inbox.Timeout, Msg: "nothing", NextSince: "msg_7_42"}, mcpkit.CodeWaitTimeout, "nothing", map[string]any{"next_since": "msg_7_42"}},
		{&inbox.Error{Kind: inbox.RateLimited, Msg: "later", RetryAfter: 1500 * time.Millisecond}, mcpkit.CodeRateLimited, "later", map[string]any{"retry_after_seconds": 2}},
		{&inbox.Error{Kind: inbox.FolderMissing, Msg: "no trash", Cause: cause}, mcpkit.CodeFolderNotFound, "no trash", nil},
		{&inbox.Error{Kind: inbox.Unsupported, Msg: "no MOVE", Cause: cause}, mcpkit.CodeInternal, "no MOVE", nil},
	}
	for _, tt := range tests {
		te := mcpkit.Classify(inboxError(tt.err), nil)
		if te.Code != tt.code || te.Message != tt.msg || !reflect.DeepEqual(te.Details, tt.details) {
			t.Errorf("inboxError(%v) = %s %q %v, want %s %q %v", tt.err, te.Code, te.Message, te.Details, tt.code, tt.msg, tt.details)
		}
	}
	for _, kind := range []inbox.Kind{inbox.Invalid, inbox.NotFound, inbox.Timeout, inbox.RateLimited, inbox.FolderMissing, inbox.Unsupported} {
		if _, ok := inboxCodes[kind]; !ok {
			t.Errorf("inboxCodes has no code for kind %d", kind)
		}
	}
	for _, err := range []error{imap.ErrAuthFailed, fmt.Errorf("wait: %w", &inbox.FolderError{Folder: "INBOX", Err: imap.ErrFolderNotFound})} {
		if got := inboxError(err); got != err {
			t.Errorf("inboxError(%v) = %v, want it untouched", err, got)
		}
	}
}
