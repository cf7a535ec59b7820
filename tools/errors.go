package tools

import (
	"errors"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// The error envelope is mcpkit's (with its constructors Errorf and
// InvalidArg): its names, as the handlers and tests write them.
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
// *outbox.Error takes its kind's code (outboxError), an *inbox.FolderError
// names its folder (folderError), a cursor Pager refused is an argument
// error (cursorError), the adapters' sentinels map to their codes,
// timeouts become CONNECTION_TIMEOUT, and anything else is INTERNAL
// (mcpkit.Classify). mcpkit classifies every failed call with it
// (Options.Classify), the inbox toolset's (package inboxtools) too.
func Classify(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	var oe *outbox.Error
	var fe *inbox.FolderError
	var ce *imap.CursorError
	switch {
	case errors.As(err, &oe):
		return outboxError(oe)
	case errors.As(err, &fe):
		err = folderError(fe.Err, fe.Folder)
	case errors.As(err, &ce):
		return cursorError(ce)
	}
	return mcpkit.Classify(err, sentinels)
}

// cursorError tells the model why imap.NewPager refused a cursor.
func cursorError(ce *imap.CursorError) *Error {
	if ce.Foreign {
		return mcpkit.InvalidArg("cursor belongs to another search: repeat the same folder and filters, or drop the cursor")
	}
	return mcpkit.InvalidArg("cursor is not a next_cursor that search_emails returned")
}

// classifyCode is err's code by the sentinels and timeouts alone.
func classifyCode(err error) Code { return mcpkit.ClassifyCode(err, sentinels) }

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
