package tools

import (
	"errors"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// sentinels maps adapter errors to codes. The first match wins, so more
// specific errors come first.
var sentinels = []mcpkit.Sentinel{
	{Err: imap.ErrFolderNotFound, Code: mcpkit.CodeFolderNotFound},
	{Err: imap.ErrMessageNotFound, Code: mcpkit.CodeMessageNotFound},
	{Err: imap.ErrAuthFailed, Code: mcpkit.CodeAuthFailed},
	{Err: imap.ErrTLS, Code: mcpkit.CodeTLSFailed},
	{Err: imap.ErrConnection, Code: mcpkit.CodeConnectionFailed},
	{Err: imap.ErrClosed, Code: mcpkit.CodeConnectionFailed},
	{Err: smtp.ErrAuthFailed, Code: mcpkit.CodeAuthFailed},
	{Err: smtp.ErrTLS, Code: mcpkit.CodeTLSFailed},
	{Err: smtp.ErrTooLarge, Code: mcpkit.CodeAttachmentTooLarge},
	{Err: smtp.ErrRejected, Code: mcpkit.CodeSendRejected},
	{Err: smtp.ErrInvalidArgument, Code: mcpkit.CodeInvalidArgument},
	{Err: smtp.ErrConnection, Code: mcpkit.CodeConnectionFailed},
	{Err: attachments.ErrNotConfigured, Code: mcpkit.CodeInvalidArgument},
	{Err: attachments.ErrOutsideWorkspace, Code: mcpkit.CodePathOutsideWorkspace},
	{Err: attachments.ErrInvalidPath, Code: mcpkit.CodeInvalidArgument},
	{Err: attachments.ErrNotRegularFile, Code: mcpkit.CodeInvalidArgument},
	{Err: attachments.ErrNotFound, Code: mcpkit.CodeInvalidArgument},
	{Err: attachments.ErrTooLarge, Code: mcpkit.CodeAttachmentTooLarge},
}

// Classify turns any error into a tool error: a *mcpkit.Error passes through, an
// *outbox.Error takes its kind's code (outboxError), an *imap.FolderError
// (inbox.FolderError) names its folder (folderError), an
// *imap.FolderRefusal is FOLDER_NOT_FOUND or INVALID_ARGUMENT, a cursor Pager refused is an argument
// error (cursorError), the adapters' sentinels map to their codes,
// timeouts become CONNECTION_TIMEOUT, and anything else is INTERNAL
// (mcpkit.Classify). mcpkit classifies every failed call with it
// (Options.Classify), the inbox toolset's (package inboxtools) too.
func Classify(err error) *mcpkit.Error {
	var te *mcpkit.Error
	if errors.As(err, &te) {
		return te
	}
	var oe *outbox.Error
	var fe *imap.FolderError
	var fr *imap.FolderRefusal
	var ce *imap.CursorError
	switch {
	case errors.As(err, &oe):
		return outboxError(oe)
	case errors.As(err, &fe):
		err = folderError(fe.Err, fe.Folder)
	case errors.As(err, &fr) && fr.NotFound:
		return mcpkit.Errorf(mcpkit.CodeFolderNotFound, "%s", fr.Msg)
	case errors.As(err, &fr):
		return mcpkit.InvalidArg("%s", fr.Msg)
	case errors.As(err, &ce):
		return cursorError(ce)
	}
	return mcpkit.Classify(err, sentinels)
}

// cursorError tells the model why imap.NewPager refused a cursor.
func cursorError(ce *imap.CursorError) *mcpkit.Error {
	if ce.Foreign {
		return mcpkit.InvalidArg("cursor belongs to another search: repeat the same folder and filters, or drop the cursor")
	}
	return mcpkit.InvalidArg("cursor is not a next_cursor that search_emails returned")
}

// classifyCode is err's code by the sentinels and timeouts alone.
func classifyCode(err error) mcpkit.Code { return mcpkit.ClassifyCode(err, sentinels) }

// outboxCodes are the codes of the send domain's errors whose kind alone
// names one.
var outboxCodes = map[outbox.Kind]mcpkit.Code{
	outbox.KindInvalid:             mcpkit.CodeInvalidArgument,
	outbox.KindRecipientNotAllowed: mcpkit.CodeRecipientNotAllowed,
	outbox.KindRateLimited:         mcpkit.CodeRateLimited,
	outbox.KindTooLarge:            mcpkit.CodeAttachmentTooLarge,
	outbox.KindRejected:            mcpkit.CodeSendRejected,
	outbox.KindInternal:            mcpkit.CodeInternal,
	outbox.KindConnectionFailed:    mcpkit.CodeConnectionFailed,
}

// outboxError is the tool error of a send domain failure, its text kept.
func outboxError(oe *outbox.Error) *mcpkit.Error {
	te := &mcpkit.Error{Code: outboxCodes[oe.Kind], Message: oe.Message, Cause: oe.Cause, Details: oe.Details}
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
		if te.Code == mcpkit.CodeFolderNotFound || te.Code == mcpkit.CodeMessageNotFound {
			te.Code = mcpkit.CodeInternal
		}
	case outbox.KindReplayed:
		te.Code = mcpkit.Code(oe.Code)
	}
	if te.Code == "" {
		te.Code = mcpkit.CodeInternal
	}
	return te
}
