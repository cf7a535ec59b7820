package tools

import (
	"errors"
	"math"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// The error envelope is mcpkit's: its names, as the handlers write them.
type (
	// Error is a tool failure with its stable code (mcpkit.Error).
	Error = mcpkit.Error
	// Code is a stable error code (mcpkit.Code).
	Code = mcpkit.Code
)

// The error codes (mcpkit's table, DESIGN.md's "Errors").
const (
	CodeInvalidArgument      = mcpkit.CodeInvalidArgument
	CodeAuthFailed           = mcpkit.CodeAuthFailed
	CodeConnectionFailed     = mcpkit.CodeConnectionFailed
	CodeConnectionTimeout    = mcpkit.CodeConnectionTimeout
	CodeTLSFailed            = mcpkit.CodeTLSFailed
	CodeFolderNotFound       = mcpkit.CodeFolderNotFound
	CodeMessageNotFound      = mcpkit.CodeMessageNotFound
	CodeAttachmentNotFound   = mcpkit.CodeAttachmentNotFound
	CodeAttachmentTooLarge   = mcpkit.CodeAttachmentTooLarge
	CodePathOutsideWorkspace = mcpkit.CodePathOutsideWorkspace
	CodeSendRejected         = mcpkit.CodeSendRejected
	CodeWaitTimeout          = mcpkit.CodeWaitTimeout
	CodeRateLimited          = mcpkit.CodeRateLimited
	CodeReadOnly             = mcpkit.CodeReadOnly
	CodeInternal             = mcpkit.CodeInternal
	CodeRecipientNotAllowed  = mcpkit.CodeRecipientNotAllowed
	CodeCancelled            = mcpkit.CodeCancelled
	CodeInboxNotFound        = mcpkit.CodeInboxNotFound
	CodeAccountNotFound      = mcpkit.CodeAccountNotFound
)

// errorf builds a tool error with a formatted, model-safe message.
func errorf(code Code, format string, args ...any) *Error {
	return mcpkit.Errorf(code, format, args...)
}

// invalidArg is the common INVALID_ARGUMENT error.
func invalidArg(format string, args ...any) *Error { return mcpkit.InvalidArg(format, args...) }

// sentinels maps adapter errors to codes. The first match wins, so more
// specific errors come first.
var sentinels = []mcpkit.Sentinel{
	{Err: imap.ErrFolderNotFound, Code: CodeFolderNotFound},
	{Err: imap.ErrMessageNotFound, Code: CodeMessageNotFound},
	{Err: imap.ErrAuthFailed, Code: CodeAuthFailed},
	{Err: imap.ErrTLS, Code: CodeTLSFailed},
	{Err: imap.ErrConnection, Code: CodeConnectionFailed},
	{Err: imap.ErrClosed, Code: CodeConnectionFailed},
	{Err: smtp.ErrAuthFailed, Code: CodeAuthFailed},
	{Err: smtp.ErrTLS, Code: CodeTLSFailed},
	{Err: smtp.ErrTooLarge, Code: CodeAttachmentTooLarge},
	{Err: smtp.ErrRejected, Code: CodeSendRejected},
	{Err: smtp.ErrInvalidArgument, Code: CodeInvalidArgument},
	{Err: smtp.ErrConnection, Code: CodeConnectionFailed},
	{Err: attachments.ErrNotConfigured, Code: CodeInvalidArgument},
	{Err: attachments.ErrOutsideWorkspace, Code: CodePathOutsideWorkspace},
	{Err: attachments.ErrInvalidPath, Code: CodeInvalidArgument},
	{Err: attachments.ErrNotRegularFile, Code: CodeInvalidArgument},
	{Err: attachments.ErrNotFound, Code: CodeInvalidArgument},
	{Err: attachments.ErrTooLarge, Code: CodeAttachmentTooLarge},
}

// Classify turns any error into a tool error: a *Error passes through, an
// *outbox.Error takes its kind's code (outboxError), the adapters'
// sentinels map to their codes, timeouts become CONNECTION_TIMEOUT, and
// anything else is INTERNAL (mcpkit.Classify). mcpkit classifies every
// failed call with it (Options.Classify).
func Classify(err error) *Error {
	var te *Error
	var oe *outbox.Error
	if !errors.As(err, &te) && errors.As(err, &oe) {
		return outboxError(oe)
	}
	return mcpkit.Classify(err, sentinels)
}

// classifyCode is err's code by the sentinels and timeouts alone.
func classifyCode(err error) Code { return mcpkit.ClassifyCode(err, sentinels) }

// inboxError maps the errors of package inbox onto codes, with the
// messages and details the model reads; other errors pass.
func inboxError(err error) error {
	var fe *inbox.FolderError
	if errors.As(err, &fe) {
		return folderError(fe.Err, fe.Folder)
	}
	var e *inbox.Error
	if !errors.As(err, &e) {
		return err
	}
	te := &Error{Code: inboxCodes[e.Kind], Message: e.Msg, Cause: e.Cause}
	switch e.Kind {
	case inbox.Timeout:
		te.Details = map[string]any{"next_since": e.NextSince}
	case inbox.RateLimited:
		te.Details = map[string]any{"retry_after_seconds": int(math.Ceil(e.RetryAfter.Seconds()))}
	}
	return te
}

// inboxCodes are the codes of inbox's kinds of error.
var inboxCodes = map[inbox.Kind]Code{
	inbox.Invalid:       CodeInvalidArgument,
	inbox.NotFound:      CodeInboxNotFound,
	inbox.Timeout:       CodeWaitTimeout,
	inbox.RateLimited:   CodeRateLimited,
	inbox.FolderMissing: CodeFolderNotFound,
	inbox.Unsupported:   CodeInternal,
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
	case outbox.KindPart:
		return Classify(downloadError(oe.Cause, oe.Folder, oe.UID))
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
