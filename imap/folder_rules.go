package imap

import (
	"context"
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"strings"
	"unicode"
)

// The user's folders are every folder but INBOX, the special-use folders
// (Sent, Trash, ...) and email-mcp's own (OwnFolderPrefix): the folder
// tools create, rename and delete those alone. CreateUserFolder,
// RenameUserFolder and DeleteUserFolder check the rules against one LIST
// and then act; a rule broken is a *FolderRefusal, naming the argument at
// fault as the caller called it (arg), and nothing is changed.

// MaxFolderName is the longest folder name the folder operations take, in
// bytes.
const MaxFolderName = 1000

// OwnFolderPrefix starts the names of email-mcp's own folders
// (email-mcp-inboxes, the send records).
const OwnFolderPrefix = "email-mcp-"

// FolderRefusal is a folder operation refused by the rules above, before
// anything reached the server. NotFound: the folder named does not exist.
type FolderRefusal struct {
	NotFound bool
	Msg      string
}

func (e *FolderRefusal) Error() string { return e.Msg }

// FolderError is an error of the server met in a folder the caller may
// need to name (ErrFolderNotFound, ErrUIDValidityChanged, ...).
type FolderError struct {
	Folder string
	Err    error
}

func (e *FolderError) Error() string { return fmt.Sprintf("folder %q: %v", e.Folder, e.Err) }

func (e *FolderError) Unwrap() error { return e.Err }

// InFolder wraps err with its folder; nil stays nil.
func InFolder(err error, folder string) error {
	if err == nil {
		return nil
	}
	return &FolderError{Folder: folder, Err: err}
}

func refuse(format string, args ...any) error {
	return &FolderRefusal{Msg: fmt.Sprintf(format, args...)}
}

func missingFolder(what, name string) error {
	return &FolderRefusal{NotFound: true, Msg: fmt.Sprintf("%s %q does not exist (list_folders shows the names)", what, message.Truncate(name, 200))}
}

// SameFolder compares folder names, INBOX without case (RFC 3501 5.1).
func SameFolder(a, b string) bool {
	return a == b || strings.EqualFold(a, "INBOX") && strings.EqualFold(b, "INBOX")
}

// CheckNotOwn refuses one of email-mcp's own folders (or a name under one).
func CheckNotOwn(name, arg string) error {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, OwnFolderPrefix) || strings.Contains(l, "/"+OwnFolderPrefix) || strings.Contains(l, "."+OwnFolderPrefix) {
		return refuse("%s %q is one of email-mcp's own folders (names starting %q): it is left alone", arg, name, OwnFolderPrefix)
	}
	return nil
}

// CreateUserFolder creates folder name at the top, or inside parent when
// parent is not "", and returns it as created. An existing name, a name
// folders cannot hold and one of email-mcp's own are refused.
func (c *Client) CreateUserFolder(ctx context.Context, name, parent string) (Folder, error) {
	folders, err := c.ListFolders(ctx, false)
	if err != nil {
		return Folder{}, err
	}
	delim := serverDelimiter(folders)
	if err := checkNewName(name, "name", delim); err != nil {
		return Folder{}, err
	}
	full := name
	if parent != "" {
		p := findFolder(folders, parent)
		switch {
		case p == nil:
			return Folder{}, missingFolder("parent folder", parent)
		case p.Delimiter == "":
			return Folder{}, refuse("this server has no folder hierarchy: create %q without parent", message.Truncate(name, 200))
		}
		delim, full = p.Delimiter, p.Name+p.Delimiter+name
	}
	if err := checkNewName(full, "name", delim); err != nil {
		return Folder{}, err
	}
	if err := CheckNotOwn(full, "name"); err != nil {
		return Folder{}, err
	}
	if f := findFolder(folders, full); f != nil {
		return Folder{}, refuse("folder %q exists already", f.Name)
	}
	return Folder{Name: full, Delimiter: delim}, InFolder(c.CreateFolder(ctx, full), full)
}

// RenameUserFolder renames folder from to the full name to (its messages
// and subfolders go along) and returns from as the server names it.
func (c *Client) RenameUserFolder(ctx context.Context, from, to string) (string, error) {
	folders, f, err := c.userFolder(ctx, from, "from", "renamed")
	if err != nil {
		return "", err
	}
	delim := f.Delimiter
	if delim == "" {
		delim = serverDelimiter(folders)
	}
	if err := checkNewName(to, "to", delim); err != nil {
		return "", err
	}
	if err := CheckNotOwn(to, "to"); err != nil {
		return "", err
	}
	if g := findFolder(folders, to); g != nil {
		return "", refuse("folder %q exists already", g.Name)
	}
	if delim != "" && strings.HasPrefix(to, f.Name+delim) {
		return "", refuse("a folder cannot move inside itself (%q is under %q)", message.Truncate(to, 200), f.Name)
	}
	return f.Name, InFolder(c.RenameFolder(ctx, f.Name, to), f.Name)
}

// DeleteUserFolder deletes folder name, which must have no subfolders,
// and returns it with the number of messages it held: a folder holding
// messages only with force, which erases them with it.
func (c *Client) DeleteUserFolder(ctx context.Context, name string, force bool) (Folder, int, error) {
	folders, f, err := c.userFolder(ctx, name, "name", "deleted")
	if err != nil {
		return Folder{}, 0, err
	}
	if hasChildren(folders, f) {
		return Folder{}, 0, refuse("folder %q has subfolders: delete or move them first", f.Name)
	}
	n := 0
	if f.Selectable() {
		res, err := c.Search(ctx, f.Name, SearchCriteria{}, PageRequest{Limit: 1, UIDsOnly: true})
		if err != nil {
			return Folder{}, 0, InFolder(err, f.Name)
		}
		n = res.Total
	}
	if n > 0 && !force {
		return Folder{}, 0, refuse("folder %q holds %d messages: nothing was deleted; force:true deletes them with it", f.Name, n)
	}
	return *f, n, InFolder(c.DeleteFolder(ctx, f.Name), f.Name)
}

// userFolder lists the folders and finds name, which must be a user's
// folder (verb: what was to be done to it).
func (c *Client) userFolder(ctx context.Context, name, arg, verb string) ([]Folder, *Folder, error) {
	if err := CheckNotOwn(name, arg); err != nil {
		return nil, nil, err
	}
	folders, err := c.ListFolders(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	f := findFolder(folders, name)
	switch {
	case f == nil:
		return nil, nil, missingFolder("folder", name)
	case SameFolder(f.Name, "INBOX"):
		return nil, nil, refuse("INBOX cannot be %s", verb)
	case f.SpecialUse != "":
		return nil, nil, refuse("%s %q is the %s folder (special use): it cannot be %s", arg, f.Name, strings.ToLower(strings.TrimPrefix(f.SpecialUse, `\`)), verb)
	}
	return folders, f, CheckNotOwn(f.Name, arg)
}

// findFolder returns the folder of that name in a LIST, or nil.
func findFolder(folders []Folder, name string) *Folder {
	for i := range folders {
		if SameFolder(folders[i].Name, name) {
			return &folders[i]
		}
	}
	return nil
}

// serverDelimiter is the hierarchy delimiter the server uses ("" when it
// has none): INBOX's, else the first folder's that has one.
func serverDelimiter(folders []Folder) string {
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
	switch {
	case name == "":
		return refuse("%s is required", arg)
	case len(name) > MaxFolderName:
		return refuse("%s is longer than %d bytes", arg, MaxFolderName)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '*' || r == '%' || r == '\uFFFD' }):
		return refuse("%s %q has a character folder names cannot hold (control characters, * or %%)", arg, message.Truncate(name, 80))
	case strings.TrimSpace(name) != name:
		return refuse("%s %q starts or ends with a space", arg, message.Truncate(name, 80))
	case delim != "" && (strings.HasPrefix(name, delim) || strings.HasSuffix(name, delim) || strings.Contains(name, delim+delim)):
		return refuse("%s %q has an empty level: %q separates levels on this server", arg, message.Truncate(name, 80), delim)
	}
	return nil
}

// hasChildren reports whether some folder is below f.
func hasChildren(folders []Folder, f *Folder) bool {
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
