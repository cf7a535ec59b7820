package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

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
		Handle: bound(func(ctx context.Context, args downloadArgs) (any, error) {
			return downloadAttachment(ctx, mail, files, args)
		}),
	}
}

func downloadAttachment(ctx context.Context, mail Mailbox, files *attachments.Workspace, args downloadArgs) (*DownloadResult, error) {
	if files == nil {
		return nil, invalidArg("attachments are disabled: set EMAIL_BASE_DIR to a folder for the attachments workspace")
	}
	folder, err := checkFolder(args.Folder, "folder")
	if err != nil {
		return nil, err
	}
	if args.UID == nil || args.AttachmentIndex == nil {
		return nil, invalidArg("uid and attachment_index are required")
	}
	part, msg, err := findAttachment(ctx, mail, folder, *args.UID, *args.AttachmentIndex)
	if err != nil {
		return nil, err
	}
	// Refused at once only when even its smallest possible decoded size is
	// over the limit; otherwise the workspace's writer enforces the exact
	// limit while it streams (an estimate refused attachments under it).
	if least := part.MinDecodedSize(); least > files.MaxFileSize() {
		return nil, errorf(CodeAttachmentTooLarge, "attachment %d is at least %d bytes, over the limit of %d (MAX_ATTACHMENT_SIZE_MB)", *args.AttachmentIndex, least, files.MaxFileSize())
	}
	name := args.FilenameOverride
	if name == "" {
		name = defaultName(part, *args.AttachmentIndex)
	}
	f, err := saveAttachment(ctx, mail, files, folder, msg.UID, part, name)
	if err != nil {
		return nil, err
	}
	return &DownloadResult{
		FilePath: f.Path, Filename: f.Name, OriginalFilename: boundName(clean(part.Filename)),
		ContentType: boundContentType(mediaType(part)), SizeBytes: f.Size, AttachmentIndex: *args.AttachmentIndex, UID: msg.UID,
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
	if err := decodeStream(dl, part.Encoding, func(w io.Writer) error {
		_, err := mail.StreamPart(ctx, folder, uid, part.Path, w)
		return err
	}); err != nil {
		return attachments.File{}, downloadError(err, folder, uid)
	}
	return dl.Commit()
}

// findAttachment fetches the message's structure (not its body) and returns
// the attachment at index, in read_email's order.
func findAttachment(ctx context.Context, mail Mailbox, folder string, ref UID, index int) (*imap.Part, *imap.Message, error) {
	msg, err := mail.FetchMessage(ctx, folder, ref.UID, 1)
	if err != nil {
		return nil, nil, messageError(err, folder, ref.UID)
	}
	if err := checkValidity(ref, msg.UIDValidity, folder); err != nil {
		return nil, nil, err
	}
	var list []*imap.Part
	if msg.Structure != nil {
		list = msg.Structure.Attachments()
	}
	if index < 0 || index >= len(list) {
		return nil, nil, errorf(CodeAttachmentNotFound, "message %d has %d attachments; attachment_index %d does not exist (read_email lists them)", ref.UID, len(list), index)
	}
	return list[index], msg, nil
}

// defaultName is the sender's file name, or attachment-N with an extension
// from the media type.
func defaultName(p *imap.Part, index int) string {
	if p.Filename != "" {
		return p.Filename
	}
	ext := ".bin"
	if mediaType(p) == "message/rfc822" {
		ext = ".eml"
	} else if exts, _ := mime.ExtensionsByType(mediaType(p)); len(exts) > 0 {
		ext = exts[0]
	}
	return fmt.Sprintf("attachment-%d%s", index, ext)
}

// mediaType is the part's type/subtype, or application/octet-stream when
// either is empty or not an RFC 2045 token: a server passes on what the
// mail says, and a hostile one says anything ("x-evil\x1b; name*=...").
func mediaType(p *imap.Part) string {
	if !isToken(p.Type) || !isToken(p.Subtype) {
		return "application/octet-stream"
	}
	return p.MediaType()
}

// isToken reports an RFC 2045 token: printable ASCII but for space and
// tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

func downloadError(err error, folder string, uid uint32) error {
	if errors.Is(err, imap.ErrPartNotFound) {
		return errorf(CodeAttachmentNotFound, "the attachment is no longer in message %d", uid)
	}
	return messageError(err, folder, uid)
}

// decodeStream is imap.DecodeStream: download_attachment, forward_email
// and the web inbox decode parts with the decoder that counts read_email's
// attachment sizes.
func decodeStream(dst io.Writer, encoding string, stream func(io.Writer) error) error {
	return imap.DecodeStream(dst, encoding, stream)
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
