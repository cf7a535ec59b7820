package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/smtp"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("select %q on imap.example.com: %w", "Nope", err) }
	cases := []struct {
		err  error
		want mcpkit.Code
	}{
		{mcpkit.InvalidArg("bad"), mcpkit.CodeInvalidArgument},
		{wrap(imap.ErrFolderNotFound), mcpkit.CodeFolderNotFound},
		{wrap(imap.ErrMessageNotFound), mcpkit.CodeMessageNotFound},
		{wrap(imap.ErrAuthFailed), mcpkit.CodeAuthFailed},
		{wrap(imap.ErrTLS), mcpkit.CodeTLSFailed},
		{wrap(imap.ErrConnection), mcpkit.CodeConnectionFailed},
		{wrap(imap.ErrClosed), mcpkit.CodeConnectionFailed},
		{wrap(smtp.ErrAuthFailed), mcpkit.CodeAuthFailed},
		{wrap(smtp.ErrTLS), mcpkit.CodeTLSFailed},
		{wrap(smtp.ErrRejected), mcpkit.CodeSendRejected},
		{wrap(smtp.ErrTooLarge), mcpkit.CodeAttachmentTooLarge},
		{wrap(smtp.ErrInvalidArgument), mcpkit.CodeInvalidArgument},
		{wrap(smtp.ErrConnection), mcpkit.CodeConnectionFailed},
		{wrap(attachments.ErrOutsideWorkspace), mcpkit.CodePathOutsideWorkspace},
		{wrap(attachments.ErrInvalidPath), mcpkit.CodeInvalidArgument},
		{wrap(attachments.ErrTooLarge), mcpkit.CodeAttachmentTooLarge},
		{wrap(attachments.ErrNotConfigured), mcpkit.CodeInvalidArgument},
		{wrap(context.DeadlineExceeded), mcpkit.CodeConnectionTimeout},
		{wrap(os.ErrDeadlineExceeded), mcpkit.CodeConnectionTimeout},
		{wrap(timeoutErr{}), mcpkit.CodeConnectionTimeout},
		// A missing folder is never a timeout, even when both are in the chain.
		{errors.Join(imap.ErrFolderNotFound, context.DeadlineExceeded), mcpkit.CodeFolderNotFound},
		{errors.New("something odd"), mcpkit.CodeInternal},
		{mcpkit.Errorf(mcpkit.CodeWaitTimeout, "nothing arrived"), mcpkit.CodeWaitTimeout},
		{&imap.FolderRefusal{NotFound: true, Msg: "folder \"x\" does not exist"}, mcpkit.CodeFolderNotFound},
		{&imap.FolderRefusal{Msg: "INBOX cannot be deleted"}, mcpkit.CodeInvalidArgument},
		{imap.InFolder(imap.ErrFolderNotFound, "Gone"), mcpkit.CodeFolderNotFound},
	}
	for _, tc := range cases {
		if got := Classify(tc.err).Code; got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestUIDArgument(t *testing.T) {
	cases := []struct {
		in   string
		want UID
		ok   bool
	}{
		{`42`, UID{UID: 42}, true}, {`"42"`, UID{UID: 42}, true}, {`" 7 "`, UID{UID: 7}, true}, {`42.0`, UID{UID: 42}, true},
		{`"msg_1700_42"`, UID{UID: 42, Validity: 1700}, true},
		{`0`, UID{}, false}, {`-1`, UID{}, false}, {`"abc"`, UID{}, false}, {`4294967296`, UID{}, false},
		{`1.5`, UID{}, false}, {`true`, UID{}, false}, {`"msg_0_4"`, UID{}, false}, {`"msg_5_"`, UID{}, false},
		{`"msg_5_x"`, UID{}, false}, {`"msg_99999999999_1"`, UID{}, false},
	}
	for _, tc := range cases {
		var u UID
		err := u.UnmarshalJSON([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && u != tc.want) {
			t.Errorf("UID.UnmarshalJSON(%s) = %+v, %v; want %+v ok=%v", tc.in, u, err, tc.want, tc.ok)
		}
	}
}

// TestClassifyInboxFolder: the errors the inbox toolset passes on are
// classified as the mail tools' are: an *inbox.FolderError names its
// folder, and a cursor imap.NewPager refused is an argument error that
// says why.
func TestClassifyInboxFolder(t *testing.T) {
	_, foreign := imap.NewPager("AQAAAAcAAAAKAAAAAA", "INBOX", imap.SearchCriteria{}, 5)
	cases := []struct {
		err  error
		code mcpkit.Code
		msg  string
	}{
		{fmt.Errorf("wait: %w", &inbox.FolderError{Folder: "INBOX", Err: imap.ErrFolderNotFound}), mcpkit.CodeFolderNotFound,
			`folder "INBOX" does not exist (list_folders shows the names)`},
		{&inbox.FolderError{Folder: "INBOX", Err: imap.ErrAuthFailed}, mcpkit.CodeAuthFailed, "the mail server refused the configured credentials"},
		{&imap.CursorError{}, mcpkit.CodeInvalidArgument, "cursor is not a next_cursor that search_emails returned"},
		{foreign, mcpkit.CodeInvalidArgument, "cursor belongs to another search: repeat the same folder and filters, or drop the cursor"},
	}
	for _, tc := range cases {
		if te := Classify(tc.err); te.Code != tc.code || te.Message != tc.msg {
			t.Errorf("Classify(%v) = %s %q, want %s %q", tc.err, te.Code, te.Message, tc.code, tc.msg)
		}
	}
}
