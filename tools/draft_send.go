package tools

import (
	"context"
	"io"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// SendDraftResult is send_draft's result.
type SendDraftResult struct {
	SendResult
	DraftRemoved bool `json:"draft_removed" jsonschema:"the draft was removed from the Drafts folder (false: it was sent, but delete_draft it)"`
}

// send sends draft id as stored: its bytes without the Bcc field, to the
// envelope of its To, Cc and Bcc, through the guardrails of every send
// (recipient cap, allow-list, hourly cap). The Sent copy is those bytes;
// then the draft is removed.
func (b *draftBox) send(ctx context.Context, id *UID) (*SendDraftResult, error) {
	folder, d, err := b.open(ctx, id, true)
	if err != nil {
		return nil, err
	}
	if !d.Complete {
		return nil, errorf(CodeInternal, "the server returned only part of the draft: nothing was sent")
	}
	hdr, err := message.ParseHeader(d.Raw)
	if err != nil {
		return nil, invalidArg("the draft has no header: nothing was sent")
	}
	env, err := b.envelope(hdr)
	if err != nil {
		return nil, err
	}
	raw, err := smtp.NewRaw(d.Raw)
	if err != nil {
		return nil, invalidArg("the draft is not a whole message (%s): nothing was sent", trimInvalid(err))
	}
	release, err := b.o.sends.reserve(ctx)
	if err != nil {
		return nil, err
	}
	res, err := b.o.sender.Send(ctx, env, raw)
	if err != nil {
		if nothingSent(err) {
			release()
		}
		return nil, sendError(err)
	}
	out := &SendDraftResult{SendResult: SendResult{Success: true, MessageID: hdr.MessageID}}
	out.Accepted, out.AcceptedTotal = boundAddresses(res.Accepted, message.MaxAddresses, false, func(a string) (string, string) { return "", a })
	out.Rejected, out.RejectedTotal = boundAddresses(res.Rejected, message.MaxAddresses, false, func(r smtp.Rejection) (string, string) { return "", r.Address })
	out.SentCopy = b.keepCopy(ctx, raw, hdr.MessageID, time.Now())
	if len(hdr.InReplyTo) > 0 {
		b.markAnswered(ctx, hdr.InReplyTo[0])
	}
	if err := b.remove(ctx, folder, d.UID); err != nil {
		b.o.log.Warn("draft sent but not removed", "folder", folder, "uid", d.UID, "err", err)
	} else {
		out.DraftRemoved = true
	}
	return out, nil
}

// envelope checks a stored draft's sender and recipients as a send checks
// a composed message's, and returns its envelope. The sender must be our
// own address: a draft is never sent as someone else.
func (b *draftBox) envelope(hdr message.Header) (smtp.Envelope, error) {
	if len(hdr.From) != 1 || smtp.Key(hdr.From[0].Email) != smtp.Key(b.o.opts.From) {
		return smtp.Envelope{}, invalidArg("the draft's From is not this account's address: nothing was sent (update_draft writes a new From)")
	}
	m := &smtp.Message{From: smtp.Address{Email: b.o.opts.From},
		To: smtpAddrs(hdr.To), Cc: smtpAddrs(hdr.Cc), Bcc: smtpAddrs(hdr.Bcc)}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return smtp.Envelope{}, invalidArg("the draft has no recipient: add one with update_draft; nothing was sent")
	}
	if err := m.Validate(); err != nil {
		return smtp.Envelope{}, &Error{Code: CodeInvalidArgument, Cause: err,
			Message: "a recipient of the draft cannot be sent to (" + trimInvalid(err) + "): nothing was sent; fix it with update_draft"}
	}
	return b.o.checkRecipients(m, "the draft")
}

// keepCopy files the bytes that were sent in the Sent folder, as
// outbox.keepCopy does for a composed message.
func (b *draftBox) keepCopy(ctx context.Context, raw *smtp.Raw, id string, date time.Time) string {
	size, _ := raw.Size()
	return b.o.fileSent(ctx, id, date, size, func(w io.Writer) error { _, err := w.Write(raw.Bytes()); return err })
}

// markAnswered sets \Answered on the message of INBOX with Message-ID id,
// as reply_email does for the message it answers: a reply saved as a
// draft is answered when it is sent. The original may have moved; a
// failure is only logged.
func (b *draftBox) markAnswered(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	found, err := b.mail.Search(ctx, "INBOX", imap.SearchCriteria{MessageID: id}, imap.PageRequest{Limit: 5})
	if err != nil {
		b.o.log.Warn("draft sent but its original not marked answered", "err", err)
		return
	}
	var uids []uint32
	for _, m := range found.Messages {
		if m.MessageID == id { // SEARCH matches substrings
			uids = append(uids, m.UID)
		}
	}
	if len(uids) == 0 {
		return
	}
	answered := true
	if _, err := b.mail.SetFlags(ctx, "INBOX", uids, imap.FlagChange{Answered: &answered}); err != nil {
		b.o.log.Warn("draft sent but its original not marked answered", "err", err)
	}
}
