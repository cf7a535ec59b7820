package tools

import (
	"context"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// MailAdmin is the IMAP side of delete_email and the folder tools
// (imap.Client), whose rules (which folders may change, valid names) are
// imap's (folder_rules.go). It is apart from Mailbox so that a Mailbox
// without it simply serves no such tool.
type MailAdmin interface {
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
	UIDValidity(ctx context.Context, folder string) (uint32, error)
	Delete(ctx context.Context, req imap.DeleteRequest) (*imap.Deletion, error)
	CreateUserFolder(ctx context.Context, name, parent string) (imap.Folder, error)
	RenameUserFolder(ctx context.Context, from, to string) (string, error)
	DeleteUserFolder(ctx context.Context, name string, force bool) (imap.Folder, int, error)
	Trash(ctx context.Context, create bool) (name, how string, err error)
}

var _ MailAdmin = (*imap.Client)(nil)

// adminSpecs are the tools of MailAdmin, when mail has it.
func adminSpecs(mail Mailbox) []*mcpkit.Spec {
	a, ok := mail.(MailAdmin)
	if !ok {
		return nil
	}
	return []*mcpkit.Spec{deleteEmailSpec(a), createFolderSpec(a), renameFolderSpec(a), deleteFolderSpec(a)}
}
