package tools_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

func folderNames(t *testing.T, e *mailEnv) []string {
	t.Helper()
	var r tools.ListFoldersResult
	e.call(t, "list_folders", nil, &r)
	var names []string
	for _, f := range r.Folders {
		names = append(names, f.Name)
	}
	return names
}

// TestFolderTools: create, rename and delete folders with non-ASCII names,
// which must come back from list_folders as given (modified UTF-7 on the
// wire), on the mailtest account (Dovecot in the tier) and on the sandbox.
func TestFolderTools(t *testing.T) {
	t.Run("account", func(t *testing.T) {
		e := newMailEnv(t, tools.Options{})
		testFolderTools(t, e, e.acct.Folder, func(folder string, raw []byte) { e.acct.Append(t, folder, raw) })
	})
	t.Run("sandbox", func(t *testing.T) {
		env := newTestEnv(t, tools.Options{})
		put := func(folder string, raw []byte) {
			if _, err := env.mail.Append(context.Background(), folder, nil, time.Now(), int64(len(raw)), bytes.NewReader(raw)); err != nil {
				t.Fatalf("Append(%q) = %v", folder, err)
			}
		}
		testFolderTools(t, sandboxClient(t, env), func(s string) string { return s }, put)
	})
}

func testFolderTools(t *testing.T, e *mailEnv, folderName func(string) string, put func(folder string, raw []byte)) {
	parent, jp := folderName("Entwürfe"), folderName("日本語")
	var c tools.FolderResult
	e.call(t, "create_folder", map[string]any{"name": parent}, &c)
	if !c.Success || c.Name != parent || c.Delimiter != "/" {
		t.Fatalf("create_folder = %+v", c)
	}
	var child tools.FolderResult
	e.call(t, "create_folder", map[string]any{"name": "Ärger", "parent": parent}, &child)
	if child.Name != parent+"/Ärger" {
		t.Errorf("create_folder(parent) = %+v, want %q", child, parent+"/Ärger")
	}
	e.call(t, "create_folder", map[string]any{"name": jp}, &c)
	if names := folderNames(t, e); !slices.Contains(names, parent) || !slices.Contains(names, parent+"/Ärger") || !slices.Contains(names, jp) {
		t.Fatalf("list_folders = %q, want the new folders", names)
	}
	e.wantError(t, "create_folder", map[string]any{"name": jp}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "create_folder", map[string]any{"name": "inbox"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "create_folder", map[string]any{"name": "x", "parent": folderName("nope")}, mcpkit.CodeFolderNotFound)
	for _, bad := range []string{"a//b", "/a", "a/", "a*", "a%b", "a\x01b", " a", ""} {
		e.wantError(t, "create_folder", map[string]any{"name": bad}, mcpkit.CodeInvalidArgument)
	}
	e.wantError(t, "create_folder", map[string]any{"name": "email-mcp-mine"}, mcpkit.CodeInvalidArgument)

	var rn tools.RenameFolderResult
	e.call(t, "rename_folder", map[string]any{"from": jp, "to": jp + " – 2"}, &rn)
	if !rn.Success || rn.From != jp || rn.To != jp+" – 2" {
		t.Errorf("rename_folder = %+v", rn)
	}
	if names := folderNames(t, e); !slices.Contains(names, jp+" – 2") || slices.Contains(names, jp) {
		t.Errorf("after rename list_folders = %q", names)
	}
	e.wantError(t, "rename_folder", map[string]any{"from": jp, "to": jp + "3"}, mcpkit.CodeFolderNotFound)
	e.wantError(t, "rename_folder", map[string]any{"from": jp + " – 2", "to": parent}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "rename_folder", map[string]any{"from": parent, "to": parent + "/Ärger/x"}, mcpkit.CodeInvalidArgument)
	for _, fixed := range []string{"INBOX", "Sent", "Trash", "email-mcp-inboxes", "email-mcp-sends"} {
		e.wantError(t, "rename_folder", map[string]any{"from": fixed, "to": folderName("renamed")}, mcpkit.CodeInvalidArgument)
		e.wantError(t, "delete_folder", map[string]any{"name": fixed, "force": true}, mcpkit.CodeInvalidArgument)
	}
	e.wantError(t, "rename_folder", map[string]any{"from": parent, "to": "email-mcp-x"}, mcpkit.CodeInvalidArgument)

	// delete_folder: subfolders first; a non-empty folder only with force.
	e.wantError(t, "delete_folder", map[string]any{"name": parent, "force": true}, mcpkit.CodeInvalidArgument)
	put(parent+"/Ärger", []byte("Subject: keep?\r\n\r\nx\r\n"))
	e.wantError(t, "delete_folder", map[string]any{"name": parent + "/Ärger"}, mcpkit.CodeInvalidArgument)
	if names := folderNames(t, e); !slices.Contains(names, parent+"/Ärger") {
		t.Fatalf("a refused delete_folder removed the folder: %q", names)
	}
	var d tools.FolderResult
	e.call(t, "delete_folder", map[string]any{"name": parent + "/Ärger", "force": true}, &d)
	if !d.Success || d.Messages == nil || *d.Messages != 1 {
		t.Errorf("delete_folder(force) = %+v, want 1 message deleted", d)
	}
	e.call(t, "delete_folder", map[string]any{"name": parent}, &d)
	if d.Messages == nil || *d.Messages != 0 {
		t.Errorf("delete_folder(empty) = %+v", d)
	}
	if names := folderNames(t, e); slices.Contains(names, parent) || slices.Contains(names, parent+"/Ärger") {
		t.Errorf("after delete list_folders = %q", names)
	}
	e.wantError(t, "delete_folder", map[string]any{"name": parent}, mcpkit.CodeFolderNotFound)
}
