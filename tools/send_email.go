package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
)

type sendArgs struct {
	To       mcpkit.StringList `json:"to"`
	Cc       mcpkit.StringList `json:"cc"`
	Bcc      mcpkit.StringList `json:"bcc"`
	Subject  *string           `json:"subject" max:"4000"`
	Body     *string           `json:"body" max:"-"`
	BodyHTML string            `json:"body_html" max:"-"`
	FromName string            `json:"from_name"`
	ReplyTo  mcpkit.StringList `json:"reply_to"`
	// IdempotencyKey makes a repeat answer the first result (outbox/keys.go).
	IdempotencyKey string `json:"idempotency_key"`
}

// toParam, ccParam and bccParam are the recipient arguments of every tool
// that writes a message; to is required where the message is sent at once.
func toParam(required bool) mcp.ToolOption {
	opts := []mcp.PropertyOption{mcp.WithStringItems(), mcp.MaxItems(maxRecipients), mcp.Description(`recipients: "a@example.com" or "Name <a@example.com>"`)}
	if required {
		opts = append(opts, mcp.Required(), mcp.MinItems(1))
	}
	return mcp.WithArray("to", opts...)
}

func ccParam() mcp.ToolOption {
	return mcp.WithArray("cc", mcp.WithStringItems(), mcp.MaxItems(maxRecipients))
}

func bccParam(desc string) mcp.ToolOption {
	return mcp.WithArray("bcc", mcp.WithStringItems(), mcp.MaxItems(maxRecipients), mcp.Description(desc))
}

// sendParams are the arguments send_email and send_email_with_attachments share.
func sendParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		toParam(true), ccParam(), bccParam("blind copies: never written in the message"),
		mcp.WithString("subject", mcp.Required(), mcp.MaxLength(998)),
		mcp.WithString("body", mcp.Required(), mcp.Description("plain-text body")),
		mcp.WithString("body_html", mcp.Description("optional HTML body, sent as an alternative to body")),
		mcp.WithString("from_name", mcp.Description("display name of the sender (default DEFAULT_FROM_NAME)")),
		mcp.WithArray("reply_to", mcp.WithStringItems(), mcp.MaxItems(maxReplyTo), mcp.Description("Reply-To addresses")),
		idempotencyParam(),
	}
}

func sendEmailSpec(o *outbox.Outbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "send_email",
		Title: "Send an email",
		Description: "Send a new email through the account's SMTP server. Addresses are parsed (\"Name <a@x>\" or \"a@x\"); " +
			"a line break in any header field is refused. A copy is kept in the Sent folder (sent_copy)." + sendLimitsNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params:      sendParams(),
		Output:      mcp.WithOutputSchema[SendResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args sendArgs) (any, error) {
			return o.Once(ctx, "send_email", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				return send(ctx, o, args)
			})
		}),
	}
}

// send composes and sends the message of a, and shapes the result.
func send(ctx context.Context, o *outbox.Outbox, a sendArgs) (*SendResult, error) {
	m, err := o.Compose(a.message())
	if err != nil {
		return nil, err
	}
	sent, err := o.Send(ctx, m)
	if err != nil {
		return nil, err
	}
	out := sendResult(sent)
	return &out, nil
}

// message is what the arguments write of the message.
func (a sendArgs) message() outbox.Message {
	return outbox.Message{To: a.To, Cc: a.Cc, Bcc: a.Bcc, ReplyTo: a.ReplyTo,
		Subject: a.Subject, Text: a.Body, HTML: a.BodyHTML, FromName: a.FromName}
}
