package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
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
	if err := checkNotOwn(args.Name, "name"); err != nil {
		return nil, err
	}
	folders, err := mail.ListFolders(ctx, false)
	if err != nil {
		return nil, err
	}
	f := findFolder(folders, args.Name)
	if f == nil {
		return nil, mcpkit.Errorf(CodeFolderNotFound, "folder %q does not exist (list_folders shows the names)", mcpkit.Truncate(args.Name, 200))
	}
	if err := checkRemovable(f, "name", "deleted"); err != nil {
		return nil, err
	}
	if hasChildren(folders, f) {
		return nil, mcpkit.InvalidArg("folder %q has subfolders: delete or move them first", f.Name)
	}
	n := 0
	if f.Selectable() {
		res, err := mail.Search(ctx, f.Name, imap.SearchCriteria{}, imap.PageRequest{Limit: 1, UIDsOnly: true})
		if err != nil {
			return nil, folderError(err, f.Name)
		}
		n = res.Total
	}
	if n > 0 && !args.Force {
		return nil, mcpkit.InvalidArg("folder %q holds %d messages: nothing was deleted; force:true deletes them with it", f.Name, n)
	}
	if err := mail.DeleteFolder(ctx, f.Name); err != nil {
		return nil, folderError(err, f.Name)
	}
	return &FolderResult{Success: true, Name: f.Name, Delimiter: f.Delimiter, Messages: &n}, nil
}
