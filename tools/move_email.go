package tools

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// MoveResult is move_email's result.
type MoveResult struct {
	Success bool    `json:"success"`
	NewUID  *uint32 `json:"new_uid" jsonschema:"UID in the target folder; null when the server does not say (no UIDPLUS)"`
}

type moveArgs struct {
	UID        *UID   `json:"uid"`
	FromFolder string `json:"from_folder"`
	ToFolder   string `json:"to_folder"`
}

func moveEmailSpec(mail Mailbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "move_email",
		Title: "Move an email",
		Description: "Move one message to another folder (e.g. Archive or Trash, as list_folders names them). " +
			"Uses IMAP MOVE, or COPY + expunge of that one message; other messages are never touched.",
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("message UID or id")),
			mcp.WithString("from_folder", mcp.DefaultString("INBOX")),
			mcp.WithString("to_folder", mcp.Required(), mcp.Description("target folder")),
		},
		Output: mcp.WithOutputSchema[MoveResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args moveArgs) (any, error) { return moveEmail(ctx, mail, args) }),
	}
}

func moveEmail(ctx context.Context, mail Mailbox, args moveArgs) (*MoveResult, error) {
	from, err := checkFolder(args.FromFolder, "from_folder")
	if err != nil {
		return nil, err
	}
	if args.ToFolder == "" {
		return nil, mcpkit.InvalidArg("to_folder is required")
	}
	to, err := checkFolder(args.ToFolder, "to_folder")
	if err != nil {
		return nil, err
	}
	if imap.SameFolder(from, to) {
		return nil, mcpkit.InvalidArg("from_folder and to_folder are the same")
	}
	if err := checkRecordFolder(from); err != nil {
		return nil, err
	}
	if _, err := refUIDs(ctx, mail, from, []UID{*args.UID}); err != nil {
		return nil, err
	}
	newUID, err := mail.Move(ctx, from, args.UID.UID, to)
	switch {
	case errors.Is(err, imap.ErrFolderNotFound):
		return nil, mcpkit.Errorf(mcpkit.CodeFolderNotFound, "folder %q or %q does not exist (list_folders shows the names)", from, to)
	case errors.Is(err, imap.ErrUnsupported):
		return nil, &mcpkit.Error{Code: mcpkit.CodeInternal, Message: "this server supports neither MOVE nor UIDPLUS, so a single message cannot be moved safely", Cause: err}
	case err != nil:
		return nil, messageError(err, from, args.UID.UID)
	}
	out := &MoveResult{Success: true}
	if newUID != 0 {
		out.NewUID = &newUID
	}
	return out, nil
}
