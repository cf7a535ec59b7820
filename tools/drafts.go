package tools

import (
	"context"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// The drafts live in package outbox (outbox.Drafts); these are the draft
// tools' arguments and results.

// newDraftBox returns nil when mail cannot store drafts.
func newDraftBox(mail Mailbox, o *outbox.Outbox, files *attachments.Workspace) *outbox.Drafts {
	store, ok := mail.(outbox.DraftStore)
	if !ok {
		return nil
	}
	return outbox.NewDrafts(store, o, files)
}

// saveDraft saves m, a reply or forward composed for sending, as a draft.
func saveDraft(ctx context.Context, mail Mailbox, o *outbox.Outbox, m *smtp.Message) (*outbox.Saved, error) {
	b := newDraftBox(mail, o, nil)
	if b == nil {
		return nil, mcpkit.InvalidArg("this server cannot keep drafts")
	}
	return b.Save(ctx, m)
}

// DraftResult is the result of save_draft and update_draft, and the draft
// part of reply_email's with draft=true.
type DraftResult struct {
	Success     bool             `json:"success"`
	DraftID     string           `json:"draft_id" jsonschema:"for update_draft, send_draft, delete_draft (\"\" if the server did not say)"`
	UID         *uint32          `json:"uid"`
	Folder      string           `json:"folder" jsonschema:"the Drafts folder"`
	MessageID   string           `json:"message_id" jsonschema:"kept when it is sent"`
	Attachments []SentAttachment `json:"attachments,omitempty"`
	// Replaced is update_draft's: the id of the draft it replaced, now gone.
	Replaced string `json:"replaced_draft_id,omitempty" jsonschema:"update_draft: the old draft, now removed"`
}

// draftResult shapes a saved draft and the files it carries.
func draftResult(s *outbox.Saved, listed []outbox.Attached) *DraftResult {
	out := &DraftResult{Success: true, DraftID: s.ID, Folder: s.Folder, MessageID: s.MessageID, Attachments: sentAttachments(listed)}
	if s.UID != 0 {
		uid := s.UID
		out.UID = &uid
	}
	return out
}

// DeleteDraftResult is delete_draft's result.
type DeleteDraftResult struct {
	Success bool   `json:"success"`
	DraftID string `json:"draft_id" jsonschema:"the id of the draft removed"`
}

// SendDraftResult is send_draft's result.
type SendDraftResult struct {
	SendResult
	DraftRemoved bool `json:"draft_removed" jsonschema:"the draft was removed from the Drafts folder (false: it was sent, but delete_draft it)"`
}

// draftArgs are save_draft's arguments: send_email's, all optional, with
// attachments and the message a reply answers.
type draftArgs struct {
	To              mcpkit.StringList `json:"to"`
	Cc              mcpkit.StringList `json:"cc"`
	Bcc             mcpkit.StringList `json:"bcc"`
	Subject         *string           `json:"subject" max:"4000"`
	Body            string            `json:"body" max:"-"`
	BodyHTML        string            `json:"body_html" max:"-"`
	FromName        string            `json:"from_name"`
	ReplyTo         mcpkit.StringList `json:"reply_to"`
	AttachmentPaths []string          `json:"attachment_paths"`
	ReplyToUID      *UID              `json:"reply_to_uid"`
	Folder          string            `json:"folder"`
}

// draft is what the arguments write of the draft; the folder of
// reply_to_uid is checked here.
func (a draftArgs) draft() (outbox.Draft, error) {
	body := a.Body
	d := outbox.Draft{
		Message: outbox.Message{To: a.To, Cc: a.Cc, Bcc: a.Bcc, ReplyTo: a.ReplyTo,
			Subject: a.Subject, Text: &body, HTML: a.BodyHTML, FromName: a.FromName},
		Attachments: a.AttachmentPaths, Answers: ref(a.ReplyToUID), Folder: a.Folder,
	}
	if d.Answers != nil {
		folder, err := checkFolder(a.Folder, "folder")
		if err != nil {
			return d, err
		}
		d.Folder = folder
	}
	return d, nil
}

// ref is the outbox's name of a message argument; nil when not given.
func ref(u *UID) *outbox.Ref {
	if u == nil {
		return nil
	}
	r := outbox.Ref(*u)
	return &r
}
