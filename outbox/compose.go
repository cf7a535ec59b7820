package outbox

import (
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

// Message is what a caller writes of a new message: addresses as given
// ("a@x" or "Name <a@x>", lists in one string allowed), parsed here.
type Message struct {
	To, Cc, Bcc, ReplyTo []string
	Subject, Text        *string // nil: not given ("" for a draft)
	HTML                 string
	FromName             string
}

// Compose builds the message of a send: addresses parsed, never
// concatenated; at least one recipient; the recipient and Reply-To bounds.
func (o *Outbox) Compose(in Message) (*smtp.Message, error) {
	if len(in.To) == 0 {
		return nil, invalid("to needs at least one recipient")
	}
	if in.Subject == nil || in.Text == nil {
		return nil, invalid("subject and body are required")
	}
	m, err := o.build(in)
	if err != nil {
		return nil, err
	}
	return m, CheckRecipientCount(m, "the message")
}

// Forward builds a forward to the recipients of in, checked (count,
// allow-list, syntax) before the original is read; the caller writes its
// subject and content.
func (o *Outbox) Forward(in Message) (*smtp.Message, error) {
	empty := ""
	in.Subject, in.Text = &empty, &empty
	m, err := o.Compose(in)
	if err != nil {
		return nil, err
	}
	if _, err := o.CheckRecipients(m, "the forward"); err != nil {
		return nil, err
	}
	return m, nil
}

// build parses in into a message dated now, after a first count of the
// strings given: every string but an empty group holds at least one
// address. CheckRecipientCount counts the addresses after.
func (o *Outbox) build(in Message) (*smtp.Message, error) {
	if n := len(in.To) + len(in.Cc) + len(in.Bcc); n > MaxRecipients {
		return nil, invalid("%d recipients in to, cc and bcc; at most %d in all", n, MaxRecipients)
	}
	from, err := o.From(in.FromName)
	if err != nil {
		return nil, err
	}
	m := &smtp.Message{From: from, Subject: deref(in.Subject), Text: deref(in.Text), HTML: in.HTML, Date: time.Now()}
	lists := []struct {
		name string
		in   []string
		out  *[]smtp.Address
	}{{"to", in.To, &m.To}, {"cc", in.Cc, &m.Cc}, {"bcc", in.Bcc, &m.Bcc}, {"reply_to", in.ReplyTo, &m.ReplyTo}}
	for _, l := range lists {
		if *l.out, err = parseAddresses(l.name, l.in); err != nil {
			return nil, err
		}
	}
	if len(m.ReplyTo) > MaxReplyTo {
		return nil, invalid("reply_to has %d addresses; at most %d", len(m.ReplyTo), MaxReplyTo)
	}
	return m, nil
}

func parseAddresses(name string, in []string) ([]smtp.Address, error) {
	out, err := smtp.ParseAddressList(in)
	if err != nil {
		return nil, invalid("%s: %s", name, TrimInvalid(err))
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
