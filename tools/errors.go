package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// Code is a stable error code that a tool result carries (DESIGN.md, "Errors").
// The list is append-only: clients match on these strings.
type Code string

// The error codes, in DESIGN.md order.
const (
	CodeInvalidArgument      Code = "INVALID_ARGUMENT"
	CodeAuthFailed           Code = "AUTH_FAILED"
	CodeConnectionFailed     Code = "CONNECTION_FAILED"
	CodeConnectionTimeout    Code = "CONNECTION_TIMEOUT"
	CodeTLSFailed            Code = "TLS_FAILED"
	CodeFolderNotFound       Code = "FOLDER_NOT_FOUND"
	CodeMessageNotFound      Code = "MESSAGE_NOT_FOUND"
	CodeAttachmentNotFound   Code = "ATTACHMENT_NOT_FOUND"
	CodeAttachmentTooLarge   Code = "ATTACHMENT_TOO_LARGE"
	CodePathOutsideWorkspace Code = "PATH_OUTSIDE_WORKSPACE"
	CodeSendRejected         Code = "SEND_REJECTED"
	CodeWaitTimeout          Code = "WAIT_TIMEOUT"
	CodeRateLimited          Code = "RATE_LIMITED"
	CodeReadOnly             Code = "READ_ONLY"
	CodeInternal             Code = "INTERNAL"
	// CodeRecipientNotAllowed: a recipient is outside SEND_ALLOWED_RECIPIENTS
	// (appended after DESIGN.md's list; nothing was sent).
	CodeRecipientNotAllowed Code = "RECIPIENT_NOT_ALLOWED"
	// CodeCancelled: the client cancelled the call (or went away) before it
	// ended. Clients that cancelled ignore the answer; the log says so at
	// info level instead of reporting an internal error.
	CodeCancelled Code = "CANCELLED"
	// CodeInboxNotFound: an inbox_id (or address) that is well formed but
	// names no test inbox of this account: never created, or deleted.
	CodeInboxNotFound Code = "INBOX_NOT_FOUND"
)

// codeInfo is what the model is told for a code when the handler has nothing
// more specific to say: a generic message that names no host, credential or
// raw server text, and whether retrying the same call may succeed.
var codeInfo = map[Code]struct {
	message   string
	retryable bool
}{
	CodeInvalidArgument:      {"the arguments are not valid", false},
	CodeAuthFailed:           {"the mail server refused the configured credentials", false},
	CodeConnectionFailed:     {"the mail server could not be reached", true},
	CodeConnectionTimeout:    {"the mail server did not answer in time", true},
	CodeTLSFailed:            {"a secure (TLS) connection to the mail server could not be established", false},
	CodeFolderNotFound:       {"the folder does not exist", false},
	CodeMessageNotFound:      {"the message does not exist (it may have been moved or deleted)", false},
	CodeAttachmentNotFound:   {"the attachment does not exist", false},
	CodeAttachmentTooLarge:   {"the attachment is larger than allowed", false},
	CodePathOutsideWorkspace: {"the path is outside the attachments workspace", false},
	CodeSendRejected:         {"the mail server rejected the message", false},
	CodeWaitTimeout:          {"nothing matching arrived before the timeout", true},
	CodeRateLimited:          {"too many requests; try again later", true},
	CodeReadOnly:             {"the server is in read-only mode", false},
	CodeInternal:             {"an internal error occurred", true},
	CodeRecipientNotAllowed:  {"a recipient is not on the server's allow-list; nothing was sent", false},
	CodeCancelled:            {"the call was cancelled", true},
	CodeInboxNotFound:        {"the test inbox does not exist (create it with create_inbox)", false},
}

// Error is a tool failure with its stable code and a message that is safe to
// show to the model. Cause is kept for the log only.
type Error struct {
	Code    Code
	Message string
	Cause   error
	// Details are extra structured fields for the model (for example the
	// per-recipient results of a rejected send, or next_since of a timed-out
	// wait). They must be safe to show.
	Details map[string]any
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// errorf builds a tool error with a formatted, model-safe message.
func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// invalidArg is the common INVALID_ARGUMENT error.
func invalidArg(format string, args ...any) *Error {
	return errorf(CodeInvalidArgument, format, args...)
}

// sentinels maps adapter errors to codes. The first match wins, so more
// specific errors come first.
var sentinels = []struct {
	err  error
	code Code
}{
	{imap.ErrFolderNotFound, CodeFolderNotFound},
	{imap.ErrMessageNotFound, CodeMessageNotFound},
	{imap.ErrAuthFailed, CodeAuthFailed},
	{imap.ErrTLS, CodeTLSFailed},
	{imap.ErrConnection, CodeConnectionFailed},
	{imap.ErrClosed, CodeConnectionFailed},
	{smtp.ErrAuthFailed, CodeAuthFailed},
	{smtp.ErrTLS, CodeTLSFailed},
	{smtp.ErrTooLarge, CodeAttachmentTooLarge},
	{smtp.ErrRejected, CodeSendRejected},
	{smtp.ErrInvalidArgument, CodeInvalidArgument},
	{smtp.ErrConnection, CodeConnectionFailed},
	{attachments.ErrNotConfigured, CodeInvalidArgument},
	{attachments.ErrOutsideWorkspace, CodePathOutsideWorkspace},
	{attachments.ErrInvalidPath, CodeInvalidArgument},
	{attachments.ErrNotRegularFile, CodeInvalidArgument},
	{attachments.ErrNotFound, CodeInvalidArgument},
	{attachments.ErrTooLarge, CodeAttachmentTooLarge},
}

// Classify turns any error into a tool error: a *Error passes through, adapter
// sentinels map to their codes, timeouts become CONNECTION_TIMEOUT, and
// anything else is INTERNAL. The message is the code's generic one unless the
// error is already a *Error.
func Classify(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	var oe *outbox.Error
	if errors.As(err, &oe) {
		return outboxError(oe)
	}
	code := classifyCode(err)
	return &Error{Code: code, Message: codeInfo[code].message, Cause: err}
}

func classifyCode(err error) Code {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.code
		}
	}
	if isTimeout(err) {
		return CodeConnectionTimeout
	}
	return CodeInternal
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errorResult is the one place that builds a failed CallToolResult: isError,
// text "CODE: message", and structuredContent {"error":{code,message,retryable,...}}.
func errorResult(e *Error) *mcp.CallToolResult {
	body := map[string]any{
		"code":      string(e.Code),
		"message":   e.Message,
		"retryable": codeInfo[e.Code].retryable,
	}
	for k, v := range e.Details {
		body[k] = v
	}
	res := mcp.NewToolResultStructured(map[string]any{"error": body}, string(e.Code)+": "+e.Message)
	res.IsError = true
	return res
}

// outboxCodes are the codes of the send domain's errors whose kind alone
// names one.
var outboxCodes = map[outbox.Kind]Code{
	outbox.KindInvalid:             CodeInvalidArgument,
	outbox.KindRecipientNotAllowed: CodeRecipientNotAllowed,
	outbox.KindRateLimited:         CodeRateLimited,
	outbox.KindTooLarge:            CodeAttachmentTooLarge,
	outbox.KindRejected:            CodeSendRejected,
	outbox.KindInternal:            CodeInternal,
	outbox.KindConnectionFailed:    CodeConnectionFailed,
}

// outboxError is the tool error of a send domain failure, its text kept.
func outboxError(oe *outbox.Error) *Error {
	te := &Error{Code: outboxCodes[oe.Kind], Message: oe.Message, Cause: oe.Cause, Details: oe.Details}
	switch oe.Kind {
	case outbox.KindFolder:
		return Classify(folderError(oe.Cause, oe.Folder))
	case outbox.KindMessage:
		return Classify(messageError(oe.Cause, oe.Folder, oe.UID))
	case outbox.KindPath:
		return Classify(pathError(oe.Cause, oe.Path))
	case outbox.KindCause:
		te.Code = Classify(oe.Cause).Code
	case outbox.KindRecords:
		te.Code = classifyCode(oe.Cause)
		if te.Code == CodeFolderNotFound || te.Code == CodeMessageNotFound {
			te.Code = CodeInternal
		}
	case outbox.KindReplayed:
		te.Code = Code(oe.Code)
	}
	if te.Code == "" {
		te.Code = CodeInternal
	}
	return te
}
