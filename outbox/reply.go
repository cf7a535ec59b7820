package outbox

import (
	"log/slog"
	"time"

	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// Logger is the outbox's log, for what a tool does around a send.
func (o *Outbox) Logger() *slog.Logger { return o.log }

// Reply composes the reply to the message with header hdr: to its
// Reply-To (else From), with all also to its To and Cc without our own
// address; "Re:" subject and the threading headers. Its recipients are
// checked before anything else is done for it (see checkReply).
func (o *Outbox) Reply(hdr message.Header, text, html string, all bool) (*smtp.Message, error) {
	from, err := o.From("")
	if err != nil {
		return nil, err
	}
	inReplyTo, refs := smtp.ReplyThread(hdr.References, hdr.InReplyTo, hdr.MessageID)
	to, cc := smtp.ReplyRecipients(Original(hdr), []string{o.opts.From}, all)
	m := &smtp.Message{
		From: from, To: to, Cc: cc, Subject: smtp.ReplySubject(hdr.Subject),
		Text: text, HTML: html, Date: time.Now(),
		InReplyTo: inReplyTo, References: refs,
	}
	return m, o.checkReply(m)
}

// checkReply applies the recipient rules to a reply before anything else
// is done for it (the quote fetched, SMTP reached): its recipients came from
// an untrusted message, which must not choose how many there are (at most
// MaxRecipients, once de-duplicated), whether they are allowed, nor smuggle
// in an address that cannot be sent to.
func (o *Outbox) checkReply(m *smtp.Message) error {
	if len(m.To) == 0 {
		return invalid("the original has no address to reply to (no From or Reply-To)")
	}
	if _, err := o.CheckRecipients(m, "the reply"); err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return &Error{Kind: KindInvalid, Cause: err,
			Message: "an address of the original cannot be answered (" + TrimInvalid(err) + "): nothing was sent; send_email lets you choose the recipients"}
	}
	return nil
}

// Author is the first From of hdr, as an attribution line names it.
func Author(hdr message.Header) smtp.Address {
	if len(hdr.From) == 0 {
		return smtp.Address{}
	}
	return smtp.Address{Name: hdr.From[0].Name, Email: hdr.From[0].Email}
}
