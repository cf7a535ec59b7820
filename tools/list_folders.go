package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// FolderInfo is one folder in list_folders' result.
type FolderInfo struct {
	Name       string   `json:"name" jsonschema:"folder name (UTF-8), as other tools expect it"`
	Delimiter  string   `json:"delimiter" jsonschema:"hierarchy delimiter, empty when the server has none"`
	Flags      []string `json:"flags" jsonschema:"IMAP folder attributes as sent by the server"`
	SpecialUse *string  `json:"special_use" jsonschema:"special use of the folder: sent, drafts, trash, junk, archive, all or flagged; null when none"`
	Messages   *uint32  `json:"messages,omitempty" jsonschema:"number of messages (with include_counts)"`
	Unseen     *uint32  `json:"unseen,omitempty" jsonschema:"number of unread messages (with include_counts)"`
}

// ListFoldersResult is list_folders' result.
type ListFoldersResult struct {
	Folders []FolderInfo `json:"folders"`
	// Omitted counts the folders left out because their name is longer
	// than a folder argument may be (1000 bytes): no tool could use them,
	// and the server's names must not make the answer unbounded.
	Omitted int `json:"folders_omitted,omitempty" jsonschema:"folders left out: their names are longer than 1000 bytes, which no folder argument accepts"`
}

type listFoldersArgs struct {
	IncludeCounts bool `json:"include_counts"`
}

func listFoldersSpec(mail Mailbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:        "list_folders",
		Title:       "List folders",
		Description: "List the mailbox folders with their special use (sent, drafts, trash, junk, archive) and, with include_counts, the number of messages and unread messages in each. Use the names it returns as the folder arguments of other tools.",
		Toolset:     ToolsetMail,
		ReadOnly:    true, Idempotent: true, OpenWorld: true,
		Params: []mcp.ToolOption{
			mcp.WithBoolean("include_counts", mcp.DefaultBool(false),
				mcp.Description("Also return messages and unseen counts per folder (one STATUS per folder on servers without LIST-STATUS).")),
		},
		Output: mcp.WithOutputSchema[ListFoldersResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args listFoldersArgs) (any, error) {
			folders, err := mail.ListFolders(ctx, args.IncludeCounts)
			if err != nil {
				return nil, err
			}
			out := ListFoldersResult{Folders: make([]FolderInfo, 0, len(folders))}
			for _, f := range folders {
				if len(f.Name) > maxFolderArg { // bounds: SECURITY.md
					out.Omitted++
					continue
				}
				out.Folders = append(out.Folders, folderInfo(f))
			}
			return out, nil
		}),
	}
}

func folderInfo(f imap.Folder) FolderInfo {
	fi := FolderInfo{Name: f.Name, Delimiter: f.Delimiter, Flags: f.Flags, Messages: f.Messages, Unseen: f.Unseen}
	if fi.Flags == nil {
		fi.Flags = []string{}
	}
	if f.SpecialUse != "" {
		su := strings.ToLower(strings.TrimPrefix(f.SpecialUse, `\`))
		fi.SpecialUse = &su
	}
	return fi
}
