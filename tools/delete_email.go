package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// DeleteResult is delete_email's result.
type DeleteResult struct {
	Success     bool              `json:"success"`
	DryRun      bool              `json:"dry_run,omitempty"`
	Deleted     []uint32          `json:"deleted" jsonschema:"the uids removed from the folder (with dry_run: that would be)"`
	Missing     []uint32          `json:"missing" jsonschema:"uids asked for that are not in the folder"`
	Permanent   bool              `json:"permanent"`
	TrashFolder string            `json:"trash_folder,omitempty" jsonschema:"where the messages went"`
	TrashFound  string            `json:"trash_found,omitempty" jsonschema:"how the trash folder was chosen: special_use, name, created (none existed) or would_create (dry_run)"`
	NewUIDs     map[string]uint32 `json:"new_uids,omitempty" jsonschema:"uid in the trash folder by original uid, when the server says"`
	Subjects    map[string]string `json:"subjects,omitempty" jsonschema:"dry_run: each message's subject (untrusted), cut to 200 characters"`
}

type deleteArgs struct {
	UID       *UID   `json:"uid"`
	UIDs      []UID  `json:"uids"`
	Folder    string `json:"folder"`
	Permanent bool   `json:"permanent"`
	DryRun    bool   `json:"dry_run"`
}

// maxDryRunSubject bounds each subject of a dry run, in characters.
const maxDryRunSubject = 200

func deleteEmailSpec(mail MailAdmin) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "delete_email",
		Title: "Delete emails",
		Description: "Delete messages: move them to the Trash folder (the delete that works on Gmail too). " +
			"permanent:true erases them for good instead, the only way to delete from Trash itself. " +
			"Use move_email to file mail elsewhere; dry_run:true shows what would go." + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			uidParam(), uidsParam(),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithBoolean("permanent", mcp.DefaultBool(false), mcp.Description("erase for good (UID EXPUNGE of these messages only) instead of moving to Trash")),
			mcp.WithBoolean("dry_run", mcp.DefaultBool(false), mcp.Description("change nothing: list what would be deleted")),
		},
		Output: mcp.WithOutputSchema[DeleteResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args deleteArgs) (any, error) { return deleteEmail(ctx, mail, args) }),
	}
}

func deleteEmail(ctx context.Context, mail MailAdmin, args deleteArgs) (*DeleteResult, error) {
	folder, refs, err := messageArgs(args.Folder, args.UID, args.UIDs)
	if err != nil {
		return nil, err
	}
	if err := checkRecordFolder(folder); err != nil {
		return nil, err
	}
	if err := imap.CheckNotOwn(folder, "folder"); err != nil { // the inboxes' markers
		return nil, err
	}
	uids, err := refUIDs(ctx, mail, folder, refs)
	if err != nil {
		return nil, err
	}
	req := imap.DeleteRequest{Folder: folder, UIDs: uids, Permanent: args.Permanent, DryRun: args.DryRun}
	out := &DeleteResult{Permanent: args.Permanent, DryRun: args.DryRun}
	if !args.Permanent {
		trash, found, err := mail.Trash(ctx, !args.DryRun)
		if err != nil {
			return nil, folderError(err, "Trash")
		}
		if imap.SameFolder(trash, folder) {
			return nil, mcpkit.InvalidArg("folder %q is the trash folder: deleting from it is permanent only with permanent:true", folder)
		}
		req.Trash, out.TrashFolder, out.TrashFound = trash, trash, found
	}
	d, err := mail.Delete(ctx, req)
	if err != nil {
		return nil, deleteError(err, folder, out.TrashFolder)
	}
	shapeDeletion(out, d)
	return out, nil
}

// shapeDeletion fills the result from what Delete did: uids as strings
// (JSON object keys), subjects of a dry run cleaned and cut.
func shapeDeletion(out *DeleteResult, d *imap.Deletion) {
	out.Success, out.Deleted, out.Missing = true, d.Deleted, d.Missing
	if out.Missing == nil {
		out.Missing = []uint32{}
	}
	if len(d.NewUIDs) > 0 {
		out.NewUIDs = make(map[string]uint32, len(d.NewUIDs))
		for u, n := range d.NewUIDs {
			out.NewUIDs[strconv.FormatUint(uint64(u), 10)] = n
		}
	}
	if out.DryRun {
		out.Subjects = make(map[string]string, len(d.Subjects))
		for u, s := range d.Subjects {
			out.Subjects[strconv.FormatUint(uint64(u), 10)] = cutRunes(clean(s), maxDryRunSubject)
		}
	}
}

// deleteError translates Delete's failures.
func deleteError(err error, folder, trash string) error {
	var m *imap.MissingUIDsError
	switch {
	case errors.As(err, &m):
		return &mcpkit.Error{Code: mcpkit.CodeMessageNotFound, Message: fmt.Sprintf("no message with uid %v in %q: nothing was deleted", m.UIDs, folder), Cause: err}
	case errors.Is(err, imap.ErrUnsupported) && trash == "":
		return &mcpkit.Error{Code: mcpkit.CodeInvalidArgument, Message: "this server has no UIDPLUS, so a permanent delete could also erase other messages marked deleted: nothing was deleted; leave permanent off to move them to Trash", Cause: err}
	case errors.Is(err, imap.ErrUnsupported):
		return &mcpkit.Error{Code: mcpkit.CodeInternal, Message: "this server supports neither MOVE nor UIDPLUS, so messages cannot be deleted safely: nothing was deleted", Cause: err}
	case errors.Is(err, imap.ErrFolderNotFound) && trash != "":
		return &mcpkit.Error{Code: mcpkit.CodeFolderNotFound, Message: fmt.Sprintf("folder %q or the trash folder %q does not exist (list_folders shows the names)", folder, trash), Cause: err}
	}
	return folderError(err, folder)
}

// cutRunes cuts s to at most n characters.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
