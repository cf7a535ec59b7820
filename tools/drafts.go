package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// Drafts live in the account's Drafts folder (the \Drafts special-use
// folder, else one with a usual Drafts name, else "Drafts", created), with
// the \Draft flag, so the user sees them in any mail client. A draft is a
// whole message as send_email would compose it, its Bcc written in the
// header; send_draft sends its stored bytes with the Bcc removed.

// DraftStore is what the draft tools need of the IMAP side besides the
// Mailbox (imap.Client has it all).
type DraftStore interface {
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	CreateFolder(ctx context.Context, folder string) error
	RemoveMessage(ctx context.Context, folder string, uid uint32) error
}

var _ DraftStore = (*imap.Client)(nil)

// draftBox keeps drafts in the Drafts folder and sends them through the
// outbox.
type draftBox struct {
	mail  Mailbox
	store DraftStore
	o     *outbox
	files *attachments.Workspace
}

// newDraftBox returns nil when mail cannot store drafts.
func newDraftBox(mail Mailbox, o *outbox, files *attachments.Workspace) *draftBox {
	store, ok := mail.(DraftStore)
	if !ok {
		return nil
	}
	return &draftBox{mail: mail, store: store, o: o, files: files}
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

// draftNames are usual names of a Drafts folder without the attribute.
var draftNames = []string{"Drafts", "INBOX.Drafts", "INBOX/Drafts", "[Gmail]/Drafts", "Draft"}

// folder finds the Drafts folder, creating "Drafts" when there is none.
func (b *draftBox) folder(ctx context.Context) (string, error) {
	folders, err := b.mail.ListFolders(ctx, false)
	if err != nil {
		return "", err
	}
	for _, f := range folders {
		if strings.EqualFold(f.SpecialUse, `\Drafts`) {
			return f.Name, nil
		}
	}
	for _, name := range draftNames {
		for _, f := range folders {
			if strings.EqualFold(f.Name, name) {
				return f.Name, nil
			}
		}
	}
	if err := b.store.CreateFolder(ctx, "Drafts"); err != nil {
		return "", err
	}
	return "Drafts", nil
}

// save stores m as a new draft: APPEND to the Drafts folder with \Draft
// and \Seen. It is the one way a draft is made (save_draft, update_draft,
// reply_email's draft=true; forward_email's too): compose an smtp.Message
// as for sending, then save it.
func (b *draftBox) save(ctx context.Context, m *smtp.Message) (*DraftResult, error) {
	m.Draft = true
	if err := m.Validate(); err != nil {
		return nil, sendError(err)
	}
	folder, err := b.folder(ctx)
	if err != nil {
		return nil, folderError(err, "Drafts")
	}
	size, err := m.Size()
	if err != nil {
		return nil, sendError(err)
	}
	pr, pw := io.Pipe()
	go func() { _, werr := m.WriteTo(pw); pw.CloseWithError(werr) }()
	uid, err := b.store.Append(ctx, folder, []string{`\Draft`, `\Seen`}, m.Date, size, pr)
	pr.CloseWithError(err)
	if err != nil {
		return nil, folderError(err, folder)
	}
	out := &DraftResult{Success: true, Folder: folder, MessageID: m.ID()}
	if uid == 0 { // no UIDPLUS: find it by its Message-ID
		if found, err := b.mail.Search(ctx, folder, imap.SearchCriteria{MessageID: m.ID()}, imap.PageRequest{Limit: 1, UIDsOnly: true}); err == nil && len(found.Messages) > 0 {
			uid = found.Messages[0].UID
		}
	}
	if uid != 0 {
		out.UID = &uid
		if v, err := b.mail.UIDValidity(ctx, folder); err == nil {
			out.DraftID = msgID(v, uid)
		}
	}
	return out, nil
}

// draftArgs are save_draft's arguments: send_email's, all optional, with
// attachments and the message a reply answers.
type draftArgs struct {
	To              StringList `json:"to"`
	Cc              StringList `json:"cc"`
	Bcc             StringList `json:"bcc"`
	Subject         *string    `json:"subject" max:"4000"`
	Body            string     `json:"body" max:"-"`
	BodyHTML        string     `json:"body_html" max:"-"`
	FromName        string     `json:"from_name"`
	ReplyTo         StringList `json:"reply_to"`
	AttachmentPaths []string   `json:"attachment_paths"`
	ReplyToUID      *UID       `json:"reply_to_uid"`
	Folder          string     `json:"folder"`
}

// compose builds a draft from a; old is the header of the draft an update
// replaces, whose threading headers a draft without reply_to_uid keeps.
func (b *draftBox) compose(ctx context.Context, a draftArgs, old *message.Header) (*smtp.Message, []SentAttachment, error) {
	if n := len(a.To) + len(a.Cc) + len(a.Bcc); n > maxRecipients {
		return nil, nil, invalidArg("%d recipients in to, cc and bcc; at most %d in all", n, maxRecipients)
	}
	from, err := b.o.from(a.FromName)
	if err != nil {
		return nil, nil, err
	}
	m := &smtp.Message{From: from, Text: a.Body, HTML: a.BodyHTML, Date: time.Now(), Draft: true}
	lists := []struct {
		name string
		in   StringList
		out  *[]smtp.Address
	}{{"to", a.To, &m.To}, {"cc", a.Cc, &m.Cc}, {"bcc", a.Bcc, &m.Bcc}, {"reply_to", a.ReplyTo, &m.ReplyTo}}
	for _, l := range lists {
		if *l.out, err = parseAddresses(l.name, l.in); err != nil {
			return nil, nil, err
		}
	}
	if len(m.ReplyTo) > maxReplyTo {
		return nil, nil, invalidArg("reply_to has %d addresses; at most %d", len(m.ReplyTo), maxReplyTo)
	}
	if a.Subject != nil {
		m.Subject = *a.Subject
	}
	if err := b.thread(ctx, m, a, old); err != nil {
		return nil, nil, err
	}
	if err := checkRecipientCount(m, "the draft"); err != nil {
		return nil, nil, err
	}
	listed, err := attachFiles(b.files, a.AttachmentPaths, m)
	return m, listed, err
}

// thread makes m answer reply_to_uid as reply_email would (In-Reply-To,
// References, "Re:" subject and the recipients when none are given), or
// keeps the threading of the draft it replaces.
func (b *draftBox) thread(ctx context.Context, m *smtp.Message, a draftArgs, old *message.Header) error {
	if a.ReplyToUID == nil {
		if a.Folder != "" {
			return invalidArg("folder is the folder of reply_to_uid: give both, or neither")
		}
		if old != nil {
			m.InReplyTo, m.References = first(old.InReplyTo), old.References
		}
		return nil
	}
	folder, err := checkFolder(a.Folder, "folder")
	if err != nil {
		return err
	}
	orig, err := b.mail.FetchMessage(ctx, folder, a.ReplyToUID.UID, readPrefix)
	if err != nil {
		return messageError(err, folder, a.ReplyToUID.UID)
	}
	if err := checkValidity(*a.ReplyToUID, orig.UIDValidity, folder); err != nil {
		return err
	}
	hdr, _ := message.ParseHeader(orig.Raw)
	m.InReplyTo, m.References = smtp.ReplyThread(hdr.References, hdr.InReplyTo, hdr.MessageID)
	if a.Subject == nil {
		m.Subject = smtp.ReplySubject(hdr.Subject)
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		m.To, m.Cc = smtp.ReplyRecipients(smtp.Original{
			From: smtpAddrs(hdr.From), ReplyTo: smtpAddrs(hdr.ReplyTo), To: smtpAddrs(hdr.To), Cc: smtpAddrs(hdr.Cc),
		}, []string{b.o.opts.From}, false)
	}
	return nil
}

func isMissing(err error) bool     { return errors.Is(err, imap.ErrMessageNotFound) }
func isUnsupported(err error) bool { return errors.Is(err, imap.ErrUnsupported) }

func first(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// attachFiles adds the workspace files of paths to m, with the rules of
// send_email_with_attachments, and lists them.
func attachFiles(files *attachments.Workspace, paths []string, m *smtp.Message) ([]SentAttachment, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if files == nil {
		return nil, invalidArg("attachments are disabled: set EMAIL_BASE_DIR to a folder for the attachments workspace")
	}
	if len(paths) > maxAttachments {
		return nil, invalidArg("attachment_paths takes at most %d files", maxAttachments)
	}
	var total int64
	var listed []SentAttachment
	for _, p := range paths {
		f, err := files.Stat(p)
		if err != nil {
			return nil, pathError(err, p)
		}
		total += f.Size
		if total > files.MaxFileSize() {
			return nil, errorf(CodeAttachmentTooLarge, "the attachments add up to more than %d bytes (MAX_ATTACHMENT_SIZE_MB)", files.MaxFileSize())
		}
		path := p
		m.Attachments = append(m.Attachments, smtp.Attachment{
			Filename: f.Name, ContentType: f.ContentType, Size: f.Size,
			Open: func() (io.ReadCloser, error) { _, rc, err := files.Open(path); return rc, err },
		})
		listed = append(listed, SentAttachment{FilePath: f.Path, Filename: f.Name, ContentType: f.ContentType, SizeBytes: f.Size})
	}
	return listed, nil
}

// maxDraftBytes bounds a draft that send_draft reads whole into memory.
const maxDraftBytes = 96 << 20

// open reads draft id of the Drafts folder: its first readPrefix bytes,
// or all of it (at most maxDraftBytes) when whole is set.
func (b *draftBox) open(ctx context.Context, id *UID, whole bool) (string, *imap.Message, error) {
	if id == nil {
		return "", nil, invalidArg("draft_id is required (save_draft's draft_id, or a uid in the Drafts folder)")
	}
	folder, err := b.folder(ctx)
	if err != nil {
		return "", nil, folderError(err, "Drafts")
	}
	m, err := b.mail.FetchMessage(ctx, folder, id.UID, readPrefix)
	if err == nil && whole && !m.Complete {
		if m.Size > maxDraftBytes {
			return "", nil, errorf(CodeAttachmentTooLarge, "the draft is %d bytes; send_draft sends drafts of at most %d", m.Size, maxDraftBytes)
		}
		m, err = b.mail.FetchMessage(ctx, folder, id.UID, 0)
	}
	if err != nil {
		return "", nil, messageError(err, folder, id.UID)
	}
	if err := checkValidity(*id, m.UIDValidity, folder); err != nil {
		return "", nil, err
	}
	return folder, m, nil
}

// update replaces draft id: the new draft is saved first, then the old one
// removed (UID EXPUNGE of it alone), so a failure leaves the old one
// (nothing saved) or the new one; when the removal fails twice, both are
// there and the error names the new one.
func (b *draftBox) update(ctx context.Context, id *UID, a draftArgs) (*DraftResult, error) {
	folder, old, err := b.open(ctx, id, false)
	if err != nil {
		return nil, err
	}
	hdr, _ := message.ParseHeader(old.Raw)
	m, listed, err := b.compose(ctx, a, &hdr)
	if err != nil {
		return nil, err
	}
	out, err := b.save(ctx, m)
	if err != nil {
		return nil, err
	}
	out.Attachments = listed
	if err := b.remove(ctx, folder, old.UID); err != nil {
		te := Classify(err)
		return nil, &Error{Code: te.Code, Cause: err, Details: map[string]any{"draft_id": out.DraftID},
			Message: fmt.Sprintf("the new draft was saved (draft_id %q) but the old one (uid %d) could not be removed: delete it with delete_draft", out.DraftID, old.UID)}
	}
	out.Replaced = msgID(old.UIDValidity, old.UID)
	return out, nil
}

// remove expunges uid of the Drafts folder, replaced or sent, trying a
// second time (on a fresh connection: the pool drops one after an error)
// when the first fails. A message already gone is no error: an EXPUNGE
// whose answer a broken connection lost, or another client, removed it. It
// runs to its end once started, whatever the client does.
func (b *draftBox) remove(ctx context.Context, folder string, uid uint32) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	err := b.store.RemoveMessage(ctx, folder, uid)
	if err != nil && !isMissing(err) && !isUnsupported(err) {
		err = b.store.RemoveMessage(ctx, folder, uid)
	}
	if isMissing(err) {
		return nil
	}
	return err
}

// DeleteDraftResult is delete_draft's result.
type DeleteDraftResult struct {
	Success bool   `json:"success"`
	DraftID string `json:"draft_id" jsonschema:"the id of the draft removed"`
}

func (b *draftBox) delete(ctx context.Context, id *UID) (*DeleteDraftResult, error) {
	if id == nil {
		return nil, invalidArg("draft_id is required")
	}
	folder, err := b.folder(ctx)
	if err != nil {
		return nil, folderError(err, "Drafts")
	}
	v, err := b.mail.UIDValidity(ctx, folder)
	if err != nil {
		return nil, folderError(err, folder)
	}
	if err := checkValidity(*id, v, folder); err != nil {
		return nil, err
	}
	if err := b.store.RemoveMessage(ctx, folder, id.UID); err != nil {
		return nil, removeError(err, folder, id.UID)
	}
	return &DeleteDraftResult{Success: true, DraftID: msgID(v, id.UID)}, nil
}

// removeError explains a server that cannot remove one message alone.
func removeError(err error, folder string, uid uint32) error {
	if isUnsupported(err) {
		return &Error{Code: CodeInternal, Message: "this server has no UIDPLUS, so a single message cannot be removed safely", Cause: err}
	}
	return messageError(err, folder, uid)
}

// replyDraft saves a composed reply as a draft (reply_email's draft=true):
// nothing is sent and the original is not marked answered.
func (o *outbox) replyDraft(ctx context.Context, mail Mailbox, m *smtp.Message) (*ReplyResult, error) {
	b := newDraftBox(mail, o, nil)
	if b == nil {
		return nil, invalidArg("this server cannot keep drafts")
	}
	d, err := b.save(ctx, m)
	if err != nil {
		return nil, err
	}
	out := &ReplyResult{SendResult: SendResult{Success: true, MessageID: d.MessageID, Accepted: []string{}, Rejected: []string{}, SentCopy: copySkipped}, DraftID: d.DraftID}
	out.To, out.ToTotal = boundAddresses(m.To, message.MaxAddresses, false, smtpAddr)
	out.Cc, out.CcTotal = boundAddresses(m.Cc, message.MaxAddresses, false, smtpAddr)
	out.Subject, out.SubjectTruncated = boundSubject(m.Subject, false)
	return out, nil
}
