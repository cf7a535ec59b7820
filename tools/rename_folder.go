package tools

import (
	"context"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/mark3labs/mcp-go/mcp"
)

// RenameFolderResult is rename_folder's result.
type RenameFolderResult struct {
	Success bool   `json:"success"`
	From    string `json:"from"`
	To      string `json:"to" jsonschema:"the folder's new full name; its subfolders moved with it"`
}

type renameFolderArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func renameFolderSpec(mail MailAdmin) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:        "rename_folder",
		Title:       "Rename a folder",
		Description: "Rename a folder, or move it in the hierarchy with a full new name; its messages and subfolders go along. INBOX and special-use folders (Sent, Trash...) stay.",
		Toolset:     ToolsetMail,
		ReadOnly:    false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		FolderArgs:  []string{"from", "to"},
		Params: []mcp.ToolOption{
			mcp.WithString("from", mcp.Required(), mcp.MaxLength(maxFolderArg), mcp.Description("the folder, as list_folders names it")),
			mcp.WithString("to", mcp.Required(), mcp.MaxLength(maxFolderArg), mcp.Description("its new full name (a name that does not exist yet)")),
		},
		Output: mcp.WithOutputSchema[RenameFolderResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args renameFolderArgs) (any, error) { return renameFolder(ctx, mail, args) }),
	}
}

func renameFolder(ctx context.Context, mail MailAdmin, args renameFolderArgs) (*RenameFolderResult, error) {
	if args.From == "" || args.To == "" {
		return nil, mcpkit.InvalidArg("from and to are required")
	}
	from, err := mail.RenameUserFolder(ctx, args.From, args.To)
	if err != nil {
		return nil, err
	}
	return &RenameFolderResult{Success: true, From: from, To: args.To}, nil
}
