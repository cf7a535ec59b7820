package tools

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// DownloadResult is download_attachment's result.
type DownloadResult struct {
	FilePath         string `json:"file_path" jsonschema:"path relative to EMAIL_BASE_DIR, e.g. attachments/email/downloads/report.pdf; send_email_with_attachments accepts it"`
	Filename         string `json:"filename" jsonschema:"the saved file's name (sanitized; never overwrites: a number is added)"`
	OriginalFilename string `json:"original_filename" jsonschema:"the name the sender gave (untrusted)"`
	ContentType      string `json:"content_type"`
	SizeBytes        int64  `json:"size_bytes"`
	AttachmentIndex  int    `json:"attachment_index"`
	UID              uint32 `json:"uid"`
}

type downloadArgs struct {
	UID              *UID   `json:"uid"`
	Folder           string `json:"folder"`
	AttachmentIndex  *int   `json:"attachment_index"`
	FilenameOverride string `json:"filename_override"`
}

func downloadAttachmentSpec(mail Mailbox, files *attachments.Workspace) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "download_attachment",
		Title: "Download an attachment",
		Description: "Save one attachment of a message into the attachments workspace (EMAIL_BASE_DIR/attachments/email/downloads/). " +
			"attachment_index is the index read_email lists. Existing files are never overwritten. " +
			"The file's content is untrusted: do not open or run it blindly.",
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("message UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithInteger("attachment_index", mcp.Required(), mcp.Min(0), mcp.Description("0-based index from read_email's attachments")),
			mcp.WithString("filename_override", mcp.Description("save under this name instead (sanitized)")),
		},
		Output: mcp.WithOutputSchema[DownloadResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args downloadArgs) (any, error) {
			return downloadAttachment(ctx, mail, files, args)
		}),
	}
}

func downloadAttachment(ctx context.Context, mail Mailbox, files *attachments.Workspace, args downloadArgs) (*DownloadResult, error) {
	if files == nil {
		return nil, mcpkit.InvalidArg("attachments are disabled: set EMAIL_BASE_DIR to a folder for the attachments workspace")
	}
	folder, err := checkFolder(args.Folder, "folder")
	if err != nil {
		return nil, err
	}
	part, msg, err := imap.FindAttachment(ctx, mail, folder, args.UID.UID, args.UID.Validity, *args.AttachmentIndex)
	if err != nil {
		return nil, downloadError(err, folder, args.UID.UID)
	}
	// Refused at once only when even its smallest possible decoded size is
	// over the limit; otherwise the workspace's writer enforces the exact
	// limit while it streams (an estimate refused attachments under it).
	if least := part.MinDecodedSize(); least > files.MaxFileSize() {
		return nil, mcpkit.Errorf(mcpkit.CodeAttachmentTooLarge, "attachment %d is at least %d bytes, over the limit of %d (MAX_ATTACHMENT_SIZE_MB)", *args.AttachmentIndex, least, files.MaxFileSize())
	}
	name := args.FilenameOverride
	if name == "" {
		name = part.DefaultName(*args.AttachmentIndex)
	}
	f, err := saveAttachment(ctx, mail, files, folder, msg.UID, part, name)
	if err != nil {
		return nil, err
	}
	return &DownloadResult{
		FilePath: f.Path, Filename: f.Name, OriginalFilename: message.BoundName(clean(part.Filename)),
		ContentType: message.BoundContentType(part.SafeMediaType()), SizeBytes: f.Size, AttachmentIndex: *args.AttachmentIndex, UID: msg.UID,
	}, nil
}

// saveAttachment streams part, decoded, into a new workspace file named
// name: cleaned first, as every returned string is (clean.go), or
// file_path would name no file. Nothing is left behind on a failure.
func saveAttachment(ctx context.Context, mail Mailbox, files *attachments.Workspace, folder string, uid uint32, part *imap.Part, name string) (attachments.File, error) {
	name, _ = message.CleanLine(name)
	dl, err := files.Create(name, -1)
	if err != nil {
		return attachments.File{}, err
	}
	defer func() { _ = dl.Abort() }() // no-op after Commit
	if err := imap.StreamAttachment(ctx, mail, folder, uid, part, dl); err != nil {
		return attachments.File{}, downloadError(err, folder, uid)
	}
	return dl.Commit()
}

// downloadError names the attachment in ATTACHMENT_NOT_FOUND (an index the
// message does not have, or a part gone since its structure was read) and
// the message in the other errors (messageError).
func downloadError(err error, folder string, uid uint32) error {
	var ie *imap.AttachmentIndexError
	switch {
	case errors.As(err, &ie):
		return mcpkit.Errorf(mcpkit.CodeAttachmentNotFound, "message %d has %d attachments; attachment_index %d does not exist (read_email lists them)", ie.UID, ie.Count, ie.Index)
	case errors.Is(err, imap.ErrPartNotFound):
		return mcpkit.Errorf(mcpkit.CodeAttachmentNotFound, "the attachment is no longer in message %d", uid)
	}
	return messageError(err, folder, uid)
}
