package tools

import (
	"context"
	"errors"
	"github.com/email-mcp/email-mcp/message"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
)

// SentAttachment is one file of send_email_with_attachments' result.
type SentAttachment struct {
	FilePath    string `json:"file_path"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes"`
}

// SendAttachmentsResult is send_email_with_attachments' result.
type SendAttachmentsResult struct {
	SendResult
	Attachments []SentAttachment `json:"attachments"`
}

type sendAttachmentsArgs struct {
	sendArgs
	AttachmentPaths []string `json:"attachment_paths"`
}

const maxAttachments = outbox.MaxAttachments

func sendAttachmentsSpec(o *outbox.Outbox, files *attachments.Workspace) *mcpkit.Spec {
	params := append(sendParams(), mcp.WithArray("attachment_paths", mcp.Required(), mcp.WithStringItems(), mcp.MinItems(1), mcp.MaxItems(maxAttachments),
		mcp.Description("files in the attachments workspace: attachments/email/uploads/report.pdf (or uploads/report.pdf); downloads/ works too")))
	return &mcpkit.Spec{
		Name:  "send_email_with_attachments",
		Title: "Send an email with attachments",
		Description: "Send a new email with files from the attachments workspace (EMAIL_BASE_DIR/attachments/email/uploads or downloads). " +
			"Nothing outside those two folders can be attached: no dotfiles, no links out, no other paths." + sendLimitsNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params:      params,
		Output:      mcp.WithOutputSchema[SendAttachmentsResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args sendAttachmentsArgs) (any, error) {
			return o.Once(ctx, "send_email_with_attachments", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				return sendWithAttachments(ctx, o, files, args)
			})
		}),
	}
}

func sendWithAttachments(ctx context.Context, o *outbox.Outbox, files *attachments.Workspace, a sendAttachmentsArgs) (*SendAttachmentsResult, error) {
	if files == nil {
		return nil, mcpkit.InvalidArg("attachments are disabled: set EMAIL_BASE_DIR to a folder for the attachments workspace")
	}
	if len(a.AttachmentPaths) == 0 || len(a.AttachmentPaths) > maxAttachments {
		return nil, mcpkit.InvalidArg("attachment_paths needs 1 to %d files", maxAttachments)
	}
	m, err := o.Compose(a.message())
	if err != nil {
		return nil, err
	}
	listed, err := outbox.Attach(files, a.AttachmentPaths, m)
	if err != nil {
		return nil, err
	}
	sent, err := o.Send(ctx, m)
	if err != nil {
		return nil, err
	}
	return &SendAttachmentsResult{SendResult: sendResult(sent), Attachments: sentAttachments(listed)}, nil
}

// sentAttachments shapes the files a message carries.
func sentAttachments(l []outbox.Attached) []SentAttachment {
	var out []SentAttachment
	for _, f := range l {
		out = append(out, SentAttachment{FilePath: f.Path, Filename: f.Name, ContentType: f.ContentType, SizeBytes: f.Size})
	}
	return out
}

// pathError names the path in workspace errors.
func pathError(err error, p string) error {
	te := Classify(err)
	switch {
	case errors.Is(err, attachments.ErrNotFound):
		te.Message = "attachment path " + quote(p) + " does not exist in the workspace (put files in attachments/email/uploads/)"
		return te
	}
	switch te.Code {
	case mcpkit.CodePathOutsideWorkspace:
		te.Message = "attachment path " + quote(p) + " is outside the attachments workspace (only attachments/email/uploads/ and downloads/, no dotfiles)"
	case mcpkit.CodeInvalidArgument:
		te.Message = "attachment path " + quote(p) + " is not a readable regular file in the workspace"
	case mcpkit.CodeAttachmentTooLarge:
		te.Message = "attachment " + quote(p) + " is larger than MAX_ATTACHMENT_SIZE_MB"
	}
	return te
}

func quote(s string) string { return "\"" + message.Truncate(s, 200) + "\"" }
