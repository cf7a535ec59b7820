package imap_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// TestUserFolderRules: each rule of the folder operations refuses with a
// *FolderRefusal that names the folder or the argument, and sends no
// CREATE, RENAME or DELETE.
func TestUserFolderRules(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Sent", goimap.MailboxAttrSent)
	ts.addFolder(t, "Projects", "")
	ts.addFolder(t, "Projects/Q1", "")
	ts.addFolder(t, "Full", "")
	ts.addFolder(t, "email-mcp-inboxes", "")
	ts.appendMessage(t, "Full", false)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	cases := []struct {
		name     string
		do       func() error
		notFound bool
		want     string // in the message
	}{
		{"create existing exact", func() error { _, err := c.CreateUserFolder(ctx, "Projects", ""); return err }, false, `"Projects" exists already`},
		{"create own", func() error { _, err := c.CreateUserFolder(ctx, "email-mcp-x", ""); return err }, false, "email-mcp's own folders"},
		{"create wildcard", func() error { _, err := c.CreateUserFolder(ctx, "a*", ""); return err }, false, "cannot hold"},
		{"create empty level", func() error { _, err := c.CreateUserFolder(ctx, "a//b", ""); return err }, false, "empty level"},
		{"create space", func() error { _, err := c.CreateUserFolder(ctx, " a", ""); return err }, false, "starts or ends with a space"},
		{"create no parent", func() error { _, err := c.CreateUserFolder(ctx, "x", "Nope"); return err }, true, `parent folder "Nope" does not exist`},
		{"create in existing", func() error { _, err := c.CreateUserFolder(ctx, "Q1", "Projects"); return err }, false, `"Projects/Q1" exists already`},
		{"rename INBOX", func() error { _, err := c.RenameUserFolder(ctx, "inbox", "Old"); return err }, false, "INBOX cannot be renamed"},
		{"rename special", func() error { _, err := c.RenameUserFolder(ctx, "Sent", "Old"); return err }, false, "sent folder (special use)"},
		{"rename missing", func() error { _, err := c.RenameUserFolder(ctx, "Nope", "Old"); return err }, true, `folder "Nope" does not exist`},
		{"rename into itself", func() error { _, err := c.RenameUserFolder(ctx, "Projects", "Projects/Q1/x"); return err }, false, "inside itself"},
		{"rename to own", func() error { _, err := c.RenameUserFolder(ctx, "Full", "email-mcp-x"); return err }, false, "own folders"},
		{"delete own", func() error { _, _, err := c.DeleteUserFolder(ctx, "email-mcp-inboxes", true); return err }, false, "own folders"},
		{"delete children", func() error { _, _, err := c.DeleteUserFolder(ctx, "Projects", true); return err }, false, "has subfolders"},
		{"delete not empty", func() error { _, _, err := c.DeleteUserFolder(ctx, "Full", false); return err }, false, `"Full" holds 1 messages`},
	}
	for _, tc := range cases {
		ts.commands()
		err := tc.do()
		var r *imap.FolderRefusal
		if !errors.As(err, &r) || r.NotFound != tc.notFound || !strings.Contains(r.Msg, tc.want) {
			t.Errorf("%s: err = %#v, want a FolderRefusal (not found %v) with %q", tc.name, err, tc.notFound, tc.want)
		}
		for _, cmd := range ts.commands() {
			if u := strings.ToUpper(cmd); strings.HasPrefix(u, "CREATE") || strings.HasPrefix(u, "RENAME") || strings.HasPrefix(u, "DELETE") {
				t.Errorf("%s: sent %s although refused", tc.name, cmd)
			}
		}
	}
	ts.commands()
	f, n, err := c.DeleteUserFolder(ctx, "Full", true)
	if err != nil || f.Name != "Full" || n != 1 {
		t.Errorf("DeleteUserFolder(Full, force) = %+v, %d, %v; want Full, 1 message", f, n, err)
	}
	if cmds := ts.commands(); !slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(strings.ToUpper(c), "DELETE") }) {
		t.Errorf("DeleteUserFolder(Full, force) sent %v, no DELETE (the check of refusals above could not fail)", cmds)
	}
	if _, _, err := c.DeleteUserFolder(ctx, "Full", true); err == nil {
		t.Error("DeleteUserFolder(Full) twice = nil, want an error")
	}
}
