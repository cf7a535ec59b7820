package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// ForwardResult is forward_email's result.
type ForwardResult struct {
	SendResult
	To          []string `json:"to"`
	Cc          []string `json:"cc"`
	Subject     string   `json:"subject"`
	Mode        string   `json:"mode" jsonschema:"inline or attachment"`
	Attachments int      `json:"attachments" jsonschema:"files of the original carried along (inline), or 1: the original itself (attachment)"`
	// Bounds (SECURITY.md), as in reply_email.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early here (the forward carries it whole)"`
	ToTotal          *int `json:"to_total,omitempty" jsonschema:"set when to lists only the first 100 recipients: their number"`
	CcTotal          *int `json:"cc_total,omitempty" jsonschema:"as to_total, for cc"`
	// DraftID is set with draft=true: the forward was saved, not sent.
	DraftID string `json:"draft_id,omitempty" jsonschema:"with draft true: the saved draft (nothing was sent; send_draft sends it)"`
}

type forwardArgs struct {
	UID    *UID              `json:"uid"`
	Folder string            `json:"folder"`
	To     mcpkit.StringList `json:"to"`
	Cc     mcpkit.StringList `json:"cc"`
	Bcc    mcpkit.StringList `json:"bcc"`
	Body   string            `json:"body" max:"-"`
	Mode   string            `json:"mode"`
	Draft  bool              `json:"draft"`
	// IdempotencyKey makes a repeat answer the first result (outbox/keys.go).
	IdempotencyKey string `json:"idempotency_key"`
}

// Forward modes.
const (
	forwardInline     = "inline"
	forwardAttachment = "attachment"
)

func forwardEmailSpec(mail Mailbox, o *outbox.Outbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "forward_email",
		Title: "Forward an email",
		Description: "Forward a message to new recipients, with an optional note above it. mode=inline quotes its header and body (text, and HTML when it has one) " +
			"and re-attaches its attachments unchanged; mode=attachment sends the original whole as a .eml. " +
			"Subject \"Fwd: …\"; the original gets $Forwarded. To answer the sender, use reply_email." + sendLimitsNote + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("the message to forward: UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			toParam(true), ccParam(), bccParam("blind copies: never written in the message"),
			mcp.WithString("body", mcp.Description("optional plain-text note above the forwarded message")),
			mcp.WithString("mode", mcp.Enum(forwardInline, forwardAttachment), mcp.DefaultString(forwardInline)),
			mcp.WithBoolean("draft", mcp.DefaultBool(false), mcp.Description("save the forward in Drafts instead of sending it (send_draft sends it)")),
			idempotencyParam(),
		},
		Output: mcp.WithOutputSchema[ForwardResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args forwardArgs) (any, error) {
			return o.Once(ctx, "forward_email", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				return forward(ctx, mail, o, args)
			})
		}),
	}
}

func forward(ctx context.Context, mail Mailbox, o *outbox.Outbox, a forwardArgs) (*ForwardResult, error) {
	folder, mode, fs, err := forwardSource(mail, a)
	if err != nil {
		return nil, err
	}
	m, orig, err := o.ComposeForward(ctx, fs, folder, outbox.Ref(*a.UID), outbox.ForwardOptions{
		To: a.To, Cc: a.Cc, Bcc: a.Bcc, Note: a.Body, Whole: mode == forwardAttachment,
	})
	if err != nil {
		return nil, err
	}
	if a.Draft {
		return forwardDraft(ctx, mail, o, m, mode)
	}
	sent, err := o.Send(ctx, m)
	if err != nil {
		return nil, err
	}
	o.MarkForwarded(ctx, fs, folder, orig.UID)
	return forwardResult(sendResult(sent), m, mode), nil
}

// forwardSource checks the arguments that name what is forwarded and how:
// the folder, the mode and the message, and a mailbox that can stream it.
func forwardSource(mail Mailbox, a forwardArgs) (folder, mode string, fs outbox.ForwardStore, err error) {
	if folder, err = checkFolder(a.Folder, "folder"); err != nil {
		return "", "", nil, err
	}
	mode = a.Mode
	if mode == "" {
		mode = forwardInline
	}
	if mode != forwardInline && mode != forwardAttachment {
		return "", "", nil, mcpkit.InvalidArg("mode must be inline or attachment (got %q)", message.Truncate(mode, 40))
	}
	fs, ok := mail.(outbox.ForwardStore)
	if !ok {
		return "", "", nil, mcpkit.Errorf(mcpkit.CodeInternal, "this mailbox cannot forward messages")
	}
	return folder, mode, fs, nil
}

// forwardResult shapes a forward sent or saved.
func forwardResult(sent SendResult, m *smtp.Message, mode string) *ForwardResult {
	out := &ForwardResult{SendResult: sent, Mode: mode, Attachments: len(m.Attachments)}
	out.To, out.ToTotal = message.BoundAddresses(m.To, message.MaxAddresses, false, smtpAddr)
	out.Cc, out.CcTotal = message.BoundAddresses(m.Cc, message.MaxAddresses, false, smtpAddr)
	out.Subject, out.SubjectTruncated = message.BoundSubject(m.Subject, false)
	return out
}

// forwardDraft saves the composed forward in Drafts instead of sending it
// (draft=true), attachments streamed from the original as for a send. The
// original gets $Forwarded only when a forward is sent.
func forwardDraft(ctx context.Context, mail Mailbox, o *outbox.Outbox, m *smtp.Message, mode string) (*ForwardResult, error) {
	d, err := saveDraft(ctx, mail, o, m)
	if err != nil {
		return nil, err
	}
	out := forwardResult(notSent(d.MessageID), m, mode)
	out.DraftID = d.ID
	return out, nil
}
