package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
)

type deleteFolderArgs struct {
	Name  string `json:"name"`
	Force bool   `json:"force"`
}

func deleteFolderSpec(mail MailAdmin) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:        "delete_folder",
		Title:       "Delete a folder",
		Description: "Delete an empty folder; force:true deletes one with messages, and them with it, for good (move_email or delete_email first to keep them). INBOX, special-use folders and folders with subfolders stay.",
		Toolset:     ToolsetMail,
		ReadOnly:    false, Destructive: true, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		FolderArgs:  []string{"name"},
		Params: []mcp.ToolOption{
			mcp.WithString("name", mcp.Required(), mcp.MaxLength(maxFolderArg), mcp.Description("the folder, as list_folders names it")),
			mcp.WithBoolean("force", mcp.DefaultBool(false), mcp.Description("also delete a folder that holds messages (they are erased)")),
		},
		Output: mcp.WithOutputSchema[FolderResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args deleteFolderArgs) (any, error) { return deleteFolder(ctx, mail, args) }),
	}
}

func deleteFolder(ctx context.Context, mail MailAdmin, args deleteFolderArgs) (*FolderResult, error) {
	if args.Name == "" {
		return nil, mcpkit.InvalidArg("name is required")
	}
	f, n, err := mail.DeleteUserFolder(ctx, args.Name, args.Force)
	if err != nil {
		return nil, err
	}
	return &FolderResult{Success: true, Name: f.Name, Delimiter: f.Delimiter, Messages: &n}, nil
}
