package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// ReplyResult is reply_email's result.
type ReplyResult struct {
	SendResult
	To      []string `json:"to"`
	Cc      []string `json:"cc"`
	Subject string   `json:"subject"`
	// Bounds (SECURITY.md), as in read_email.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early here (the reply carries it whole)"`
	ToTotal          *int `json:"to_total,omitempty" jsonschema:"set when to lists only the first 100 recipients: their number"`
	CcTotal          *int `json:"cc_total,omitempty" jsonschema:"as to_total, for cc"`
	// DraftID is set with draft=true: the reply was saved, not sent.
	DraftID string `json:"draft_id,omitempty" jsonschema:"with draft true: the saved draft (nothing was sent; send_draft sends it)"`
}

type replyArgs struct {
	UID      *UID    `json:"uid"`
	Folder   string  `json:"folder"`
	Body     *string `json:"body" max:"-"`
	BodyHTML string  `json:"body_html" max:"-"`
	ReplyAll bool    `json:"reply_all"`
	Quote    *bool   `json:"quote"`
	Draft    bool    `json:"draft"`
	// IdempotencyKey makes a repeat answer the first result (outbox/keys.go).
	IdempotencyKey string `json:"idempotency_key"`
}

func replyEmailSpec(mail Mailbox, o *outbox.Outbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "reply_email",
		Title: "Reply to an email",
		Description: "Reply to a message: to its Reply-To (else From), with reply_all also to its To and Cc (without our own address), " +
			"subject \"Re: …\", In-Reply-To and the full References chain so it threads, the original quoted below (quote=false to leave it out). " +
			"The original is marked answered." + sendLimitsNote + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("the message to reply to: UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithString("body", mcp.Required(), mcp.Description("plain-text reply")),
			mcp.WithString("body_html", mcp.Description("optional HTML reply")),
			mcp.WithBoolean("reply_all", mcp.DefaultBool(false)),
			mcp.WithBoolean("quote", mcp.DefaultBool(true), mcp.Description("quote the original below the reply")),
			mcp.WithBoolean("draft", mcp.DefaultBool(false), mcp.Description("save the reply in Drafts instead of sending it (send_draft sends it)")),
			idempotencyParam(),
		},
		Output: mcp.WithOutputSchema[ReplyResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args replyArgs) (any, error) {
			return o.Once(ctx, "reply_email", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				return reply(ctx, mail, o, args)
			})
		}),
	}
}

func reply(ctx context.Context, mail Mailbox, o *outbox.Outbox, a replyArgs) (*ReplyResult, error) {
	folder, err := checkFolder(a.Folder, "folder")
	if err != nil {
		return nil, err
	}
	m, orig, err := o.ComposeReply(ctx, mail, folder, outbox.Ref(*a.UID), outbox.ReplyOptions{
		Text: *a.Body, HTML: a.BodyHTML, All: a.ReplyAll, Quote: a.Quote == nil || *a.Quote,
	})
	if err != nil {
		return nil, err
	}
	if a.Draft {
		return replyDraft(ctx, mail, o, m)
	}
	sent, err := o.Send(ctx, m)
	if err != nil {
		return nil, err
	}
	o.MarkAnswered(ctx, mail, folder, orig.UID)
	return replyResult(sendResult(sent), m), nil
}

// replyResult shapes a reply sent or saved.
func replyResult(sent SendResult, m *smtp.Message) *ReplyResult {
	out := &ReplyResult{SendResult: sent}
	out.To, out.ToTotal = message.BoundAddresses(m.To, message.MaxAddresses, false, smtpAddr)
	out.Cc, out.CcTotal = message.BoundAddresses(m.Cc, message.MaxAddresses, false, smtpAddr)
	out.Subject, out.SubjectTruncated = message.BoundSubject(m.Subject, false)
	return out
}

// replyDraft saves a composed reply as a draft (reply_email's draft=true):
// nothing is sent and the original is not marked answered.
func replyDraft(ctx context.Context, mail Mailbox, o *outbox.Outbox, m *smtp.Message) (*ReplyResult, error) {
	d, err := saveDraft(ctx, mail, o, m)
	if err != nil {
		return nil, err
	}
	out := replyResult(notSent(d.MessageID), m)
	out.DraftID = d.ID
	return out, nil
}
