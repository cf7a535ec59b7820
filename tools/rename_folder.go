package tools

import (
	"context"
	"strings"

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
	if err := checkNotOwn(args.From, "from"); err != nil {
		return nil, err
	}
	folders, err := mail.ListFolders(ctx, false)
	if err != nil {
		return nil, err
	}
	f := findFolder(folders, args.From)
	if f == nil {
		return nil, mcpkit.Errorf(CodeFolderNotFound, "folder %q does not exist (list_folders shows the names)", mcpkit.Truncate(args.From, 200))
	}
	if err := checkRemovable(f, "from", "renamed"); err != nil {
		return nil, err
	}
	delim := f.Delimiter
	if delim == "" {
		delim = serverDelimiter(folders)
	}
	if err := checkNewName(args.To, "to", delim); err != nil {
		return nil, err
	}
	if err := checkNotOwn(args.To, "to"); err != nil {
		return nil, err
	}
	if g := findFolder(folders, args.To); g != nil {
		return nil, mcpkit.InvalidArg("folder %q exists already", g.Name)
	}
	if delim != "" && strings.HasPrefix(args.To, f.Name+delim) {
		return nil, mcpkit.InvalidArg("a folder cannot move inside itself (%q is under %q)", mcpkit.Truncate(args.To, 200), f.Name)
	}
	if err := mail.RenameFolder(ctx, f.Name, args.To); err != nil {
		return nil, folderError(err, f.Name)
	}
	return &RenameFolderResult{Success: true, From: f.Name, To: args.To}, nil
}
