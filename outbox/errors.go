package outbox

import (
	"fmt"
	"strings"
)

// Kind says which stable code a tool gives an [Error]: the MCP room keeps
// the codes (DESIGN.md, "Errors") and maps each kind to one of them.
type Kind int

// The kinds of [Error]. The list is append-only, as the codes are.
const (
	// KindInvalid: the arguments of a send or draft are not valid.
	KindInvalid Kind = iota + 1
	// KindRecipientNotAllowed: a recipient is outside the allow-list.
	KindRecipientNotAllowed
	// KindRateLimited: the hourly cap, or a key's send still in progress.
	KindRateLimited
	// KindTooLarge: the message is larger than the server or a bound takes.
	KindTooLarge
	// KindRejected: the mail server refused the message.
	KindRejected
	// KindInternal: a fault of ours or of the server's answer.
	KindInternal
	// KindConnectionFailed: a send that may have been delivered, whose
	// replica stopped before it recorded a result.
	KindConnectionFailed
	// KindCause: the code is the one of Cause; Message explains it.
	KindCause
	// KindRecords: the send records could not be read or written: the
	// code of Cause, but a missing folder or message is internal.
	KindRecords
	// KindFolder: Cause happened on Folder (a missing folder is named).
	KindFolder
	// KindMessage: Cause happened on message UID of Folder.
	KindMessage
	// KindReplayed: the stored error of an idempotency key's first send,
	// answered again with its own Code.
	KindReplayed
	// KindPath: Cause happened on the workspace file Path.
	KindPath
	// KindPart: Cause happened on an attachment of message UID of Folder
	// (a forward carrying it along).
	KindPart
)

// Error is a failure of the send domain, with a message that is safe to
// show to the model; Cause is kept for the log.
type Error struct {
	Kind    Kind
	Message string // "" for KindFolder, KindMessage and KindPart: the tool writes it
	Cause   error
	// Details are extra structured fields for the model (refused
	// recipients, retry_after_seconds, maybe_delivered ...).
	Details map[string]any
	Folder  string // KindFolder, KindMessage, KindPart
	UID     uint32 // KindMessage, KindPart
	Code    string // KindReplayed: the stored code
	Path    string // KindPath
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("outbox: %s: %v", e.Message, e.Cause)
	}
	return "outbox: " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// invalid is the common KindInvalid error.
func invalid(format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Message: fmt.Sprintf(format, args...)}
}

// folderErr and messageErr leave the text to the tool, which names folders
// and messages the same way for every tool.
func folderErr(err error, folder string) *Error {
	return &Error{Kind: KindFolder, Cause: err, Folder: folder}
}

func messageErr(err error, folder string, uid uint32) *Error {
	return &Error{Kind: KindMessage, Cause: err, Folder: folder, UID: uid}
}

// TrimInvalid is the part of an smtp.ErrInvalidArgument message after the
// sentinel's text: the field and what is wrong with it.
func TrimInvalid(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "invalid argument: "); i >= 0 {
		return msg[i+len("invalid argument: "):]
	}
	return msg
}

// containsControl reports a control character: header values are one line.
func containsControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
