package inboxtools

import (
	"errors"
	"math"

	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// inboxError maps the errors of package inbox onto codes, with the
// messages and details the model reads. Other errors pass, an
// *inbox.FolderError among them: an adapter's error in a folder, which the
// server's Classify names with its folder as it does for every tool.
func inboxError(err error) error {
	var e *inbox.Error
	if !errors.As(err, &e) {
		return err
	}
	te := &mcpkit.Error{Code: inboxCodes[e.Kind], Message: e.Msg, Cause: e.Cause}
	switch e.Kind {
	case inbox.Timeout:
		te.Details = map[string]any{"next_since": e.NextSince}
	case inbox.RateLimited:
		te.Details = map[string]any{"retry_after_seconds": int(math.Ceil(e.RetryAfter.Seconds()))}
	}
	return te
}

// inboxCodes are the codes of inbox's kinds of error.
var inboxCodes = map[inbox.Kind]mcpkit.Code{
	inbox.Invalid:       mcpkit.CodeInvalidArgument,
	inbox.NotFound:      mcpkit.CodeInboxNotFound,
	inbox.Timeout:       mcpkit.CodeWaitTimeout,
	inbox.RateLimited:   mcpkit.CodeRateLimited,
	inbox.FolderMissing: mcpkit.CodeFolderNotFound,
	inbox.Unsupported:   mcpkit.CodeInternal,
}
