package outbox

import (
	"context"

	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// Draft is what save_draft and update_draft write: a [Message] whose
// fields are all optional, files of the workspace, and the message it
// answers.
type Draft struct {
	Message
	Attachments []string // workspace paths
	// Answers is the message the draft replies to, in Folder (checked by
	// the caller; "" with no Answers).
	Answers *Ref
	Folder  string
}

// Compose builds a new draft from in.
func (d *Drafts) Compose(ctx context.Context, in Draft) (*smtp.Message, []Attached, error) {
	return d.compose(ctx, in, nil)
}

// compose builds a draft from in; old is the header of the draft an update
// replaces, whose threading headers a draft without Answers keeps.
func (d *Drafts) compose(ctx context.Context, in Draft, old *message.Header) (*smtp.Message, []Attached, error) {
	m, err := d.o.build(in.Message)
	if err != nil {
		return nil, nil, err
	}
	m.Draft = true
	if err := d.thread(ctx, m, in, old); err != nil {
		return nil, nil, err
	}
	if err := CheckRecipientCount(m, "the draft"); err != nil {
		return nil, nil, err
	}
	listed, err := Attach(d.files, in.Attachments, m)
	return m, listed, err
}

// thread makes m answer in.Answers as a reply would (In-Reply-To,
// References, "Re:" subject and the recipients when none are given), or
// keeps the threading of the draft it replaces.
func (d *Drafts) thread(ctx context.Context, m *smtp.Message, in Draft, old *message.Header) error {
	if in.Answers == nil {
		if in.Folder != "" {
			return invalid("folder is the folder of reply_to_uid: give both, or neither")
		}
		if old != nil {
			m.InReplyTo, m.References = first(old.InReplyTo), old.References
		}
		return nil
	}
	orig, err := d.store.FetchMessage(ctx, in.Folder, in.Answers.UID, PrefixBytes)
	if err != nil {
		return messageErr(err, in.Folder, in.Answers.UID)
	}
	if err := checkValidity(*in.Answers, orig.UIDValidity, in.Folder); err != nil {
		return err
	}
	hdr, _ := message.ParseHeader(orig.Raw)
	m.InReplyTo, m.References = smtp.ReplyThread(hdr.References, hdr.InReplyTo, hdr.MessageID)
	if in.Subject == nil {
		m.Subject = smtp.ReplySubject(hdr.Subject)
	}
	if recipientCount(m) == 0 {
		m.To, m.Cc = smtp.ReplyRecipients(Original(hdr), []string{d.o.opts.From}, false)
	}
	return nil
}

// Original is what a reply needs of the header of the message it answers.
func Original(hdr message.Header) smtp.Original {
	return smtp.Original{From: Addresses(hdr.From), ReplyTo: Addresses(hdr.ReplyTo), To: Addresses(hdr.To), Cc: Addresses(hdr.Cc)}
}

// Addresses are the addresses of l that have an email, for smtp.
func Addresses(l []message.Address) []smtp.Address {
	out := make([]smtp.Address, 0, len(l))
	for _, a := range l {
		if a.Email != "" {
			out = append(out, smtp.Address{Name: a.Name, Email: a.Email})
		}
	}
	return out
}

func first(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}
