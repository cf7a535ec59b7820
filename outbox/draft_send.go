package outbox

import (
	"context"
	"io"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// DraftSent is a draft that was sent.
type DraftSent struct {
	Sent
	Removed bool // the draft was removed from the Drafts folder
}

// Send sends draft id as stored: its bytes without the Bcc field, to the
// envelope of its To, Cc and Bcc, through the guardrails of every send
// (recipient cap, allow-list, hourly cap). The Sent copy is those bytes;
// then the draft is removed.
func (d *Drafts) Send(ctx context.Context, id *Ref) (*DraftSent, error) {
	folder, stored, err := d.open(ctx, id, true)
	if err != nil {
		return nil, err
	}
	hdr, env, raw, err := d.prepare(stored)
	if err != nil {
		return nil, err
	}
	res, err := d.o.submit(ctx, env, raw)
	if err != nil {
		return nil, err
	}
	out := &DraftSent{Sent: Sent{MessageID: hdr.MessageID, Accepted: res.Accepted, Rejected: res.Rejected}}
	out.SentCopy = d.keepCopy(ctx, raw, hdr.MessageID, time.Now())
	if len(hdr.InReplyTo) > 0 {
		d.markAnswered(ctx, hdr.InReplyTo[0])
	}
	if err := d.remove(ctx, folder, stored.UID); err != nil {
		d.o.log.Warn("draft sent but not removed", "folder", folder, "uid", stored.UID, "err", err)
	} else {
		out.Removed = true
	}
	return out, nil
}

// prepare reads a stored draft: its header, its envelope once checked, and
// its bytes as they are sent.
func (d *Drafts) prepare(stored *imap.Message) (message.Header, smtp.Envelope, *smtp.Raw, error) {
	var env smtp.Envelope
	if !stored.Complete {
		return message.Header{}, env, nil, &Error{Kind: KindInternal, Message: "the server returned only part of the draft: nothing was sent"}
	}
	hdr, err := message.ParseHeader(stored.Raw)
	if err != nil {
		return hdr, env, nil, invalid("the draft has no header: nothing was sent")
	}
	if env, err = d.envelope(hdr); err != nil {
		return hdr, env, nil, err
	}
	raw, err := smtp.NewRaw(stored.Raw)
	if err != nil {
		return hdr, env, nil, invalid("the draft is not a whole message (%s): nothing was sent", TrimInvalid(err))
	}
	return hdr, env, raw, nil
}

// envelope checks a stored draft's sender and recipients as a send checks
// a composed message's, and returns its envelope. The sender must be our
// own address: a draft is never sent as someone else.
func (d *Drafts) envelope(hdr message.Header) (smtp.Envelope, error) {
	from := d.o.opts.From
	if len(hdr.From) != 1 || smtp.Key(hdr.From[0].Email) != smtp.Key(from) {
		return smtp.Envelope{}, invalid("the draft's From is not this account's address: nothing was sent (update_draft writes a new From)")
	}
	m := &smtp.Message{From: smtp.Address{Email: from}, To: Addresses(hdr.To), Cc: Addresses(hdr.Cc), Bcc: Addresses(hdr.Bcc)}
	if recipientCount(m) == 0 {
		return smtp.Envelope{}, invalid("the draft has no recipient: add one with update_draft; nothing was sent")
	}
	if err := m.Validate(); err != nil {
		return smtp.Envelope{}, &Error{Kind: KindInvalid, Cause: err,
			Message: "a recipient of the draft cannot be sent to (" + TrimInvalid(err) + "): nothing was sent; fix it with update_draft"}
	}
	return d.o.CheckRecipients(m, "the draft")
}

// keepCopy files the bytes that were sent in the Sent folder, as
// Outbox.keepCopy does for a composed message.
func (d *Drafts) keepCopy(ctx context.Context, raw *smtp.Raw, id string, date time.Time) string {
	size, _ := raw.Size()
	return d.o.fileSent(ctx, id, date, size, func(w io.Writer) error { _, err := w.Write(raw.Bytes()); return err })
}

// markAnswered sets \Answered on the message of INBOX with Message-ID id,
// as a reply does for the message it answers: a reply saved as a draft is
// answered when it is sent. The original may have moved; a failure is
// only logged.
func (d *Drafts) markAnswered(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	found, err := d.store.Search(ctx, "INBOX", imap.SearchCriteria{MessageID: id}, imap.PageRequest{Limit: 5})
	if err != nil {
		d.o.log.Warn("draft sent but its original not marked answered", "err", err)
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
	if _, err := d.store.SetFlags(ctx, "INBOX", uids, imap.FlagChange{Answered: &answered}); err != nil {
		d.o.log.Warn("draft sent but its original not marked answered", "err", err)
	}
}
