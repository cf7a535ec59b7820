package tools

import (
	"context"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/mark3labs/mcp-go/mcp"
)

// FolderResult is the result of create_folder and delete_folder.
type FolderResult struct {
	Success   bool   `json:"success"`
	Name      string `json:"name" jsonschema:"the folder's full name, as list_folders shows it"`
	Delimiter string `json:"delimiter,omitempty" jsonschema:"the server's hierarchy delimiter"`
	Messages  *int   `json:"messages_deleted,omitempty" jsonschema:"delete_folder: messages that were in the folder"`
}

type createFolderArgs struct {
	Name   string `json:"name"`
	Parent string `json:"parent"`
}

func createFolderSpec(mail MailAdmin) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:        "create_folder",
		Title:       "Create a folder",
		Description: "Create a mail folder, at the top or under parent (any language: names are UTF-8). An existing name is an error.",
		Toolset:     ToolsetMail,
		ReadOnly:    false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		FolderArgs:  []string{"name", "parent"},
		Params: []mcp.ToolOption{
			mcp.WithString("name", mcp.Required(), mcp.MaxLength(maxFolderArg), mcp.Description("folder name; with parent, the name inside it")),
			mcp.WithString("parent", mcp.MaxLength(maxFolderArg), mcp.Description("existing folder to create it in, as list_folders names it")),
		},
		Output: mcp.WithOutputSchema[FolderResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args createFolderArgs) (any, error) { return createFolder(ctx, mail, args) }),
	}
}

func createFolder(ctx context.Context, mail MailAdmin, args createFolderArgs) (*FolderResult, error) {
	folders, err := mail.ListFolders(ctx, false)
	if err != nil {
		return nil, err
	}
	delim := serverDelimiter(folders)
	if err := checkNewName(args.Name, "name", delim); err != nil {
		return nil, err
	}
	name := args.Name
	if args.Parent != "" {
		p := findFolder(folders, args.Parent)
		switch {
		case p == nil:
			return nil, mcpkit.Errorf(CodeFolderNotFound, "parent folder %q does not exist (list_folders shows the names)", mcpkit.Truncate(args.Parent, 200))
		case p.Delimiter == "":
			return nil, mcpkit.InvalidArg("this server has no folder hierarchy: create %q without parent", mcpkit.Truncate(args.Name, 200))
		}
		delim = p.Delimiter
		name = p.Name + delim + args.Name
	}
	if err := checkNewName(name, "name", delim); err != nil {
		return nil, err
	}
	if err := checkNotOwn(name, "name"); err != nil {
		return nil, err
	}
	if f := findFolder(folders, name); f != nil {
		return nil, mcpkit.InvalidArg("folder %q exists already", f.Name)
	}
	if err := mail.CreateFolder(ctx, name); err != nil {
		return nil, folderError(err, name)
	}
	return &FolderResult{Success: true, Name: name, Delimiter: delim}, nil
}
