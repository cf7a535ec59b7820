package tools_test

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// TestDeleteEmail runs delete_email on the mailtest account (the sandbox
// server in-process, Dovecot in the tier): a dry run changes nothing, a
// delete moves to the \Trash folder, permanent erases only the named
// uids, and a message another client flagged \Deleted survives all of it.
func TestDeleteEmail(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, uids := e.seed(t, "del", "gmail-alternative.eml", "latin1-qp.eml", "inline-image.eml")
	other := e.acct.Append(t, folder, []byte("Subject: someone else's\r\n\r\nx\r\n"), `\Deleted`)

	var dry tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"folder": folder, "uids": []any{uids[0], 99999}, "dry_run": true}, &dry)
	if !dry.Success || !dry.DryRun || !slices.Equal(dry.Deleted, []uint32{uids[0]}) || !slices.Equal(dry.Missing, []uint32{99999}) ||
		dry.Subjects[strconv.Itoa(int(uids[0]))] == "" || dry.TrashFolder != "Trash" || dry.TrashFound != "special_use" {
		t.Errorf("dry run = %+v", dry)
	}
	if n := total(t, e, folder); n != 4 {
		t.Fatalf("after a dry run %q holds %d messages, want 4", folder, n)
	}

	var r tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"folder": folder, "uid": uids[0]}, &r)
	newUID := r.NewUIDs[strconv.Itoa(int(uids[0]))]
	if !r.Success || r.Permanent || !slices.Equal(r.Deleted, []uint32{uids[0]}) || len(r.Missing) != 0 || r.TrashFolder != "Trash" || newUID == 0 {
		t.Fatalf("delete = %+v", r)
	}
	var inTrash tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": "Trash", "uid": newUID}, &inTrash)

	var p tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"folder": folder, "uids": []any{uids[1], l2id(t, e, folder, uids[2])}, "permanent": true}, &p)
	if !p.Success || !p.Permanent || !slices.Equal(p.Deleted, []uint32{uids[1], uids[2]}) || p.TrashFolder != "" {
		t.Errorf("permanent delete = %+v", p)
	}
	var left tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder}, &left)
	if left.Total != 1 || left.Messages[0].UID != other {
		t.Errorf("after deletes %q holds %+v, want only uid %d (flagged \\Deleted by another client)", folder, left.Messages, other)
	}

	e.wantError(t, "delete_email", map[string]any{"folder": folder, "uid": 99999}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "delete_email", map[string]any{"folder": "Trash", "uid": newUID}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "delete_email", map[string]any{"folder": folder}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "delete_email", map[string]any{"folder": e.acct.Folder("no-such"), "uid": 1}, mcpkit.CodeFolderNotFound)
	e.wantError(t, "delete_email", map[string]any{"folder": "email-mcp-sends", "uid": 1}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "delete_email", map[string]any{"folder": "email-mcp-inboxes", "uid": 1}, mcpkit.CodeInvalidArgument)
	// Deleting from Trash is permanent only when asked.
	var gone tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"folder": "Trash", "uid": newUID, "permanent": true}, &gone)
	e.wantError(t, "read_email", map[string]any{"folder": "Trash", "uid": newUID}, mcpkit.CodeMessageNotFound)
}

func total(t *testing.T, e *mailEnv, folder string) int {
	t.Helper()
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder}, &r)
	return r.Total
}

// TestAuditDeleteAndFolders: every call of the new tools is audited with
// its folders and uid count, never a subject (a dry run returns them), and
// rename_folder's "to" is a folder, not a recipient.
func TestAuditDeleteAndFolders(t *testing.T) {
	var logs syncBuffer
	env := newTestEnv(t, tools.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	e := sandboxClient(t, env)
	const subject = "Private subject 4711"
	env.sendMail(t, testFrom, subject)
	msg := findOne(t, e, "INBOX", subject)
	e.call(t, "delete_email", map[string]any{"uids": []any{msg.UID}, "dry_run": true}, &tools.DeleteResult{})
	e.call(t, "delete_email", map[string]any{"uid": msg.UID, "permanent": true}, &tools.DeleteResult{})
	e.call(t, "create_folder", map[string]any{"name": "Ablage"}, &tools.FolderResult{})
	e.call(t, "rename_folder", map[string]any{"from": "Ablage", "to": "Ablage 2"}, &tools.RenameFolderResult{})
	e.wantError(t, "delete_folder", map[string]any{"name": "INBOX"}, mcpkit.CodeInvalidArgument)
	lines := auditLines(t, logs.String())
	if len(lines) != 5 {
		t.Fatalf("%d audit lines, want 5:\n%s", len(lines), logs.String())
	}
	if l := lines[0]; l["tool"] != "delete_email" || l["uids"] != float64(1) || l["dry_run"] != true || l["folder"] != nil {
		t.Errorf("dry run audit = %v", l)
	}
	if l := lines[1]; l["uid"] == nil || l["permanent"] != true || l["result"] != "ok" {
		t.Errorf("delete audit = %v", l)
	}
	if l := lines[3]; l["from"] != "Ablage" || l["to"] != "Ablage 2" || l["recipients"] != nil {
		t.Errorf("rename audit = %v, want from, to and no recipients", l)
	}
	if l := lines[4]; l["name"] != "INBOX" || l["result"] != "INVALID_ARGUMENT" {
		t.Errorf("delete_folder audit = %v", l)
	}
	if strings.Contains(logs.String(), subject) {
		t.Errorf("the log holds the subject:\n%s", logs.String())
	}
}

// TestDeleteTrashFallback: without a \Trash folder delete_email takes one
// named like Trash, and without that creates "Trash", saying which. It
// runs on the in-process server, where Trash can be removed (Dovecot's
// configuration recreates its special-use folders).
func TestDeleteTrashFallback(t *testing.T) {
	acct := mailtest.NewInProcessAccount(t)
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = mail.Close() })
	ts, err := tools.New(tools.Deps{Mail: mail}, tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &mailEnv{acct: acct, client: inProcessClient(t, ts)}
	c := acct.Client(t)
	if err := c.Delete("Trash").Wait(); err != nil {
		t.Fatalf("DELETE Trash = %v", err)
	}
	acct.CreateFolder(t, "Archive/Deleted Items")
	raw := []byte("Subject: x\r\n\r\nx\r\n")
	uids := []uint32{acct.Append(t, "INBOX", raw), acct.Append(t, "INBOX", raw), acct.Append(t, "INBOX", raw)}

	var dry tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"uid": uids[0], "dry_run": true}, &dry)
	if dry.TrashFolder != "Archive/Deleted Items" || dry.TrashFound != "name" {
		t.Errorf("dry run trash = %q (%s), want Archive/Deleted Items by name", dry.TrashFolder, dry.TrashFound)
	}
	var r tools.DeleteResult
	e.call(t, "delete_email", map[string]any{"uid": uids[0]}, &r)
	if r.TrashFolder != "Archive/Deleted Items" || r.TrashFound != "name" || !slices.Equal(r.Deleted, []uint32{uids[0]}) {
		t.Errorf("delete = %+v, want it in Archive/Deleted Items", r)
	}
	if err := c.Delete("Archive/Deleted Items").Wait(); err != nil {
		t.Fatalf("DELETE = %v", err)
	}
	e.call(t, "delete_email", map[string]any{"uid": uids[1], "dry_run": true}, &dry)
	if dry.TrashFound != "would_create" || slices.Contains(folderNames(t, e), "Trash") {
		t.Errorf("dry run without any trash = %+v; a dry run must create nothing", dry)
	}
	e.call(t, "delete_email", map[string]any{"uid": uids[1]}, &r)
	if r.TrashFolder != "Trash" || r.TrashFound != "created" || !slices.Contains(folderNames(t, e), "Trash") {
		t.Errorf("delete without any trash = %+v, want Trash created", r)
	}
	var found tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": "Trash"}, &found)
	if found.Total != 1 {
		t.Errorf("Trash holds %d messages, want 1", found.Total)
	}
}
