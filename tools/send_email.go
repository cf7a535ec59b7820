package tools

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/smtp"
)

type sendArgs struct {
	To       StringList `json:"to"`
	Cc       StringList `json:"cc"`
	Bcc      StringList `json:"bcc"`
	Subject  *string    `json:"subject" max:"4000"`
	Body     *string    `json:"body" max:"-"`
	BodyHTML string     `json:"body_html" max:"-"`
	FromName string     `json:"from_name"`
	ReplyTo  StringList `json:"reply_to"`
	// IdempotencyKey makes a repeat answer the first result (sendkeys.go).
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
		mcp.WithArray("reply_to", mcp.WithStringItems(), mcp.MaxItems(10), mcp.Description("Reply-To addresses")),
		idempotencyParam(),
	}
}

func sendEmailSpec(o *outbox) *spec {
	return &spec{
		name:  "send_email",
		title: "Send an email",
		description: "Send a new email through the account's SMTP server. Addresses are parsed (\"Name <a@x>\" or \"a@x\"); " +
			"a line break in any header field is refused. A copy is kept in the Sent folder (sent_copy)." + sendLimitsNote,
		toolset:  ToolsetMail,
		readOnly: false, destructive: false, idempotent: false, openWorld: true,
		changesMail: true,
		params:      sendParams(),
		output:      mcp.WithOutputSchema[SendResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args sendArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			return o.sends.once(ctx, "send_email", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				m, err := o.compose(args)
				if err != nil {
					return nil, err
				}
				return o.send(ctx, m)
			})
		},
	}
}

// compose builds the message of a send: addresses parsed, never concatenated.
func (o *outbox) compose(a sendArgs) (*smtp.Message, error) {
	if len(a.To) == 0 {
		return nil, invalidArg("to needs at least one recipient")
	}
	if a.Subject == nil || a.Body == nil {
		return nil, invalidArg("subject and body are required")
	}
	if n := len(a.To) + len(a.Cc) + len(a.Bcc); n > maxRecipients {
		// Refused before parsing: every string but an empty group holds
		// at least one address. checkRecipientCount counts them after.
		return nil, invalidArg("%d recipients in to, cc and bcc; at most %d in all", n, maxRecipients)
	}
	from, err := o.from(a.FromName)
	if err != nil {
		return nil, err
	}
	m := &smtp.Message{From: from, Subject: *a.Subject, Text: *a.Body, HTML: a.BodyHTML, Date: time.Now()}
	lists := []struct {
		name string
		in   StringList
		out  *[]smtp.Address
	}{{"to", a.To, &m.To}, {"cc", a.Cc, &m.Cc}, {"bcc", a.Bcc, &m.Bcc}, {"reply_to", a.ReplyTo, &m.ReplyTo}}
	for _, l := range lists {
		if *l.out, err = parseAddresses(l.name, l.in); err != nil {
			return nil, err
		}
	}
	if len(m.ReplyTo) > maxReplyTo {
		return nil, invalidArg("reply_to has %d addresses; at most %d", len(m.ReplyTo), maxReplyTo)
	}
	return m, checkRecipientCount(m, "the message")
}

func parseAddresses(name string, in []string) ([]smtp.Address, error) {
	out, err := smtp.ParseAddressList(in)
	if err != nil {
		return nil, invalidArg("%s: %s", name, trimInvalid(err))
	}
	return out, nil
}

// trimInvalid is the part of an smtp.ErrInvalidArgument message after the
// sentinel's text: the field and what is wrong with it.
func trimInvalid(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "invalid argument: "); i >= 0 {
		return msg[i+len("invalid argument: "):]
	}
	return msg
}
