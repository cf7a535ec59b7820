package tools

import (
	"context"
	"strings"
	"unicode"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// MailAdmin is the IMAP side of delete_email and the folder tools
// (imap.Client). It is apart from Mailbox so that a Mailbox without it
// simply serves no such tool.
type MailAdmin interface {
	ListFolders(ctx context.Context, counts bool) ([]imap.Folder, error)
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
	UIDValidity(ctx context.Context, folder string) (uint32, error)
	Delete(ctx context.Context, req imap.DeleteRequest) (*imap.Deletion, error)
	CreateFolder(ctx context.Context, folder string) error
	RenameFolder(ctx context.Context, from, to string) error
	DeleteFolder(ctx context.Context, folder string) error
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

// ownFolderPrefix starts the names of email-mcp's own folders
// (email-mcp-inboxes, the send records): the folder tools leave them alone.
const ownFolderPrefix = "email-mcp-"

// checkNotOwn refuses one of email-mcp's own folders (or a name under one).
func checkNotOwn(name, arg string) error {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, ownFolderPrefix) || strings.Contains(l, "/"+ownFolderPrefix) || strings.Contains(l, "."+ownFolderPrefix) {
		return mcpkit.InvalidArg("%s %q is one of email-mcp's own folders (names starting %q): it is left alone", arg, name, ownFolderPrefix)
	}
	return nil
}

// findFolder returns the folder of that name in a LIST, or nil.
func findFolder(folders []imap.Folder, name string) *imap.Folder {
	for i := range folders {
		if sameFolder(folders[i].Name, name) {
			return &folders[i]
		}
	}
	return nil
}

// serverDelimiter is the hierarchy delimiter the server uses ("" when it
// has none): INBOX's, else the first folder's that has one.
func serverDelimiter(folders []imap.Folder) string {
	if f := findFolder(folders, "INBOX"); f != nil && f.Delimiter != "" {
		return f.Delimiter
	}
	for _, f := range folders {
		if f.Delimiter != "" {
			return f.Delimiter
		}
	}
	return ""
}

// checkNewName validates the name of a folder to create or rename to: no
// control characters, no LIST wildcards (* %), no empty level (a leading,
// trailing or doubled delimiter).
func checkNewName(name, arg, delim string) error {
	if name == "" {
		return mcpkit.InvalidArg("%s is required", arg)
	}
	if len(name) > maxFolderArg {
		return mcpkit.InvalidArg("%s is longer than %d bytes", arg, maxFolderArg)
	}
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '*' || r == '%' || r == '\uFFFD' }) {
		return mcpkit.InvalidArg("%s %q has a character folder names cannot hold (control characters, * or %%)", arg, mcpkit.Truncate(name, 80))
	}
	if strings.TrimSpace(name) != name {
		return mcpkit.InvalidArg("%s %q starts or ends with a space", arg, mcpkit.Truncate(name, 80))
	}
	if delim != "" && (strings.HasPrefix(name, delim) || strings.HasSuffix(name, delim) || strings.Contains(name, delim+delim)) {
		return mcpkit.InvalidArg("%s %q has an empty level: %q separates levels on this server", arg, mcpkit.Truncate(name, 80), delim)
	}
	return nil
}

// checkRemovable refuses to rename or delete INBOX, a special-use folder
// and email-mcp's own folders.
func checkRemovable(f *imap.Folder, arg, verb string) error {
	switch {
	case sameFolder(f.Name, "INBOX"):
		return mcpkit.InvalidArg("INBOX cannot be %s", verb)
	case f.SpecialUse != "":
		return mcpkit.InvalidArg("%s %q is the %s folder (special use): it cannot be %s", arg, f.Name, strings.ToLower(strings.TrimPrefix(f.SpecialUse, `\`)), verb)
	}
	return checkNotOwn(f.Name, arg)
}

// hasChildren reports whether some folder is below f.
func hasChildren(folders []imap.Folder, f *imap.Folder) bool {
	if f.Delimiter == "" {
		return false
	}
	prefix := f.Name + f.Delimiter
	for _, g := range folders {
		if strings.HasPrefix(g.Name, prefix) {
			return true
		}
	}
	return false
}
