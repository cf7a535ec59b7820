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
	f, err := mail.CreateUserFolder(ctx, args.Name, args.Parent)
	if err != nil {
		return nil, err
	}
	return &FolderResult{Success: true, Name: f.Name, Delimiter: f.Delimiter}, nil
}
