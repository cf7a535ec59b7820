package outbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// Drafts live in the account's Drafts folder (the \Drafts special-use
// folder, else one with a usual Drafts name, else "Drafts", created), with
// the \Draft flag, so the user sees them in any mail client. A draft is a
// whole message as a send would compose it, its Bcc written in the
// header; Send sends its stored bytes with the Bcc removed.

// DraftStore is what the drafts need of the IMAP side (imap.Client).
type DraftStore interface {
	ListFolders(ctx context.Context, counts bool) ([]imap.Folder, error)
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
	FetchMessage(ctx context.Context, folder string, uid uint32, prefixBytes int64) (*imap.Message, error)
	SetFlags(ctx context.Context, folder string, uids []uint32, ch imap.FlagChange) (map[uint32][]string, error)
	UIDValidity(ctx context.Context, folder string) (uint32, error)
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	CreateFolder(ctx context.Context, folder string) error
	RemoveMessage(ctx context.Context, folder string, uid uint32) error
}

var _ DraftStore = (*imap.Client)(nil)

// Drafts keeps drafts in the Drafts folder and sends them through the
// Outbox.
type Drafts struct {
	store DraftStore
	o     *Outbox
	files *attachments.Workspace // nil: drafts take no attachments
}

// NewDrafts returns the drafts of store, sent through o, with attachments
// from files.
func NewDrafts(store DraftStore, o *Outbox, files *attachments.Workspace) *Drafts {
	return &Drafts{store: store, o: o, files: files}
}

// Ref names a message: its UID and, for an id, the UIDVALIDITY it was
// issued under (0: a plain UID, not checked).
type Ref = imap.Ref

// MessageRef is the id of message uid in a folder of UIDVALIDITY validity
// (imap.Ref.ID).
func MessageRef(validity, uid uint32) string { return Ref{UID: uid, Validity: validity}.ID() }

// Saved is a draft just stored.
type Saved struct {
	Folder    string
	UID       uint32 // 0: the server did not say
	ID        string // MessageRef of it; "" when the UID is unknown
	MessageID string
}

// draftNames are usual names of a Drafts folder without the attribute.
var draftNames = []string{"Drafts", "INBOX.Drafts", "INBOX/Drafts", "[Gmail]/Drafts", "Draft"}

// folder finds the Drafts folder, creating "Drafts" when there is none.
func (d *Drafts) folder(ctx context.Context) (string, error) {
	folders, err := d.store.ListFolders(ctx, false)
	if err != nil {
		return "", err
	}
	if name := specialFolder(folders, `\Drafts`, draftNames); name != "" {
		return name, nil
	}
	if err := d.store.CreateFolder(ctx, "Drafts"); err != nil {
		return "", err
	}
	return "Drafts", nil
}

// Save stores m as a new draft: APPEND to the Drafts folder with \Draft
// and \Seen. It is the one way a draft is made (save_draft, update_draft,
// a reply's or a forward's draft): compose an smtp.Message as for sending,
// then save it.
func (d *Drafts) Save(ctx context.Context, m *smtp.Message) (*Saved, error) {
	m.Draft = true
	if err := m.Validate(); err != nil {
		return nil, sendError(err)
	}
	folder, err := d.folder(ctx)
	if err != nil {
		return nil, folderErr(err, "Drafts")
	}
	size, err := m.Size()
	if err != nil {
		return nil, sendError(err)
	}
	pr, pw := io.Pipe()
	go func() { _, werr := m.WriteTo(pw); pw.CloseWithError(werr) }()
	uid, err := d.store.Append(ctx, folder, []string{`\Draft`, `\Seen`}, m.Date, size, pr)
	pr.CloseWithError(err)
	if err != nil {
		return nil, folderErr(err, folder)
	}
	return d.saved(ctx, folder, uid, m.ID()), nil
}

// saved names a stored draft; without UIDPLUS it is found by its Message-ID.
func (d *Drafts) saved(ctx context.Context, folder string, uid uint32, id string) *Saved {
	out := &Saved{Folder: folder, MessageID: id}
	if uid == 0 {
		if found, err := d.store.Search(ctx, folder, imap.SearchCriteria{MessageID: id}, imap.PageRequest{Limit: 1, UIDsOnly: true}); err == nil && len(found.Messages) > 0 {
			uid = found.Messages[0].UID
		}
	}
	if uid != 0 {
		out.UID = uid
		if v, err := d.store.UIDValidity(ctx, folder); err == nil {
			out.ID = MessageRef(v, uid)
		}
	}
	return out
}

// checkValidity refuses an id whose UIDVALIDITY is not the folder's.
func checkValidity(ref Ref, current uint32, folder string) error {
	if ref.Validity != 0 && ref.Validity != current {
		return folderErr(imap.ErrUIDValidityChanged, folder)
	}
	return nil
}

// maxDraftBytes bounds a draft that Send reads whole into memory.
const maxDraftBytes = 96 << 20

// PrefixBytes is how much of a message is fetched to read its header (and
// its whole text when it is small), as read_email does.
const PrefixBytes = 1 << 20

// open reads draft id of the Drafts folder: its first PrefixBytes, or all
// of it (at most maxDraftBytes) when whole is set.
func (d *Drafts) open(ctx context.Context, id *Ref, whole bool) (string, *imap.Message, error) {
	if id == nil {
		return "", nil, invalid("draft_id is required (save_draft's draft_id, or a uid in the Drafts folder)")
	}
	folder, err := d.folder(ctx)
	if err != nil {
		return "", nil, folderErr(err, "Drafts")
	}
	m, err := d.store.FetchMessage(ctx, folder, id.UID, PrefixBytes)
	if err == nil && whole && !m.Complete {
		if m.Size > maxDraftBytes {
			return "", nil, &Error{Kind: KindTooLarge, Message: fmt.Sprintf("the draft is %d bytes; send_draft sends drafts of at most %d", m.Size, maxDraftBytes)}
		}
		m, err = d.store.FetchMessage(ctx, folder, id.UID, 0)
	}
	if err != nil {
		return "", nil, messageErr(err, folder, id.UID)
	}
	if err := checkValidity(*id, m.UIDValidity, folder); err != nil {
		return "", nil, err
	}
	return folder, m, nil
}

// Updated is a draft that replaced another.
type Updated struct {
	*Saved
	Attached []Attached
	Replaced string // the id of the old draft, now removed
}

// Update replaces draft id: the new draft is saved first, then the old one
// removed (UID EXPUNGE of it alone), so a failure leaves the old one
// (nothing saved) or the new one; when the removal fails twice, both are
// there and the error names the new one.
func (d *Drafts) Update(ctx context.Context, id *Ref, in Draft) (*Updated, error) {
	folder, old, err := d.open(ctx, id, false)
	if err != nil {
		return nil, err
	}
	hdr, _ := message.ParseHeader(old.Raw)
	m, listed, err := d.compose(ctx, in, &hdr)
	if err != nil {
		return nil, err
	}
	saved, err := d.Save(ctx, m)
	if err != nil {
		return nil, err
	}
	if err := d.remove(ctx, folder, old.UID); err != nil {
		return nil, &Error{Kind: KindCause, Cause: err, Details: map[string]any{"draft_id": saved.ID},
			Message: fmt.Sprintf("the new draft was saved (draft_id %q) but the old one (uid %d) could not be removed: delete it with delete_draft", saved.ID, old.UID)}
	}
	return &Updated{Saved: saved, Attached: listed, Replaced: MessageRef(old.UIDValidity, old.UID)}, nil
}

func isMissing(err error) bool     { return errors.Is(err, imap.ErrMessageNotFound) }
func isUnsupported(err error) bool { return errors.Is(err, imap.ErrUnsupported) }

// remove expunges uid of the Drafts folder, replaced or sent, trying a
// second time (on a fresh connection: the pool drops one after an error)
// when the first fails. A message already gone is no error: an EXPUNGE
// whose answer a broken connection lost, or another client, removed it. It
// runs to its end once started, whatever the client does.
func (d *Drafts) remove(ctx context.Context, folder string, uid uint32) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	err := d.store.RemoveMessage(ctx, folder, uid)
	if err != nil && !isMissing(err) && !isUnsupported(err) {
		err = d.store.RemoveMessage(ctx, folder, uid)
	}
	if isMissing(err) {
		return nil
	}
	return err
}

// Delete removes draft id for good and answers its id.
func (d *Drafts) Delete(ctx context.Context, id *Ref) (string, error) {
	if id == nil {
		return "", invalid("draft_id is required")
	}
	folder, err := d.folder(ctx)
	if err != nil {
		return "", folderErr(err, "Drafts")
	}
	v, err := d.store.UIDValidity(ctx, folder)
	if err != nil {
		return "", folderErr(err, folder)
	}
	if err := checkValidity(*id, v, folder); err != nil {
		return "", err
	}
	if err := d.store.RemoveMessage(ctx, folder, id.UID); err != nil {
		return "", removeError(err, folder, id.UID)
	}
	return MessageRef(v, id.UID), nil
}

// removeError explains a server that cannot remove one message alone.
func removeError(err error, folder string, uid uint32) error {
	if isUnsupported(err) {
		return &Error{Kind: KindInternal, Message: "this server has no UIDPLUS, so a single message cannot be removed safely", Cause: err}
	}
	return messageErr(err, folder, uid)
}
