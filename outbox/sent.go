package outbox

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/smtp"
)

// keepCopy appends the exact bytes that were sent to the Sent folder, with
// \Seen, unless a copy with the same Message-ID is already there.
func (o *Outbox) keepCopy(ctx context.Context, m *smtp.Message) string {
	size, err := m.Size()
	if err != nil {
		o.log.Warn("sent copy failed", "err", err)
		return CopyFailed
	}
	return o.fileSent(ctx, m.ID(), m.Date, size, func(w io.Writer) error { _, err := m.WriteTo(w); return err })
}

// fileSent is the Sent copy of every send (keepCopy, a draft's): size
// bytes that write produces, dated date, filed with \Seen in the Sent
// folder unless the server filed its own copy of Message-ID id already.
// It answers the sent_copy word of the result.
func (o *Outbox) fileSent(ctx context.Context, id string, date time.Time, size int64, write func(io.Writer) error) string {
	if o.opts.SaveSent == "false" || o.store == nil {
		return CopyDisabled
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	folder, word := o.copyFolder(ctx)
	if folder == "" {
		return word
	}
	if id != "" {
		found, err := o.store.Search(ctx, folder, imap.SearchCriteria{MessageID: id}, imap.PageRequest{Limit: 1, UIDsOnly: true})
		if err == nil && found.Total > 0 {
			return CopySkipped // the server filed its own (Gmail does)
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	_, err := o.store.Append(ctx, folder, []string{`\Seen`}, date, size, pr)
	pr.CloseWithError(err)
	if err != nil {
		o.log.Warn("sent copy failed", "folder", folder, "err", err)
		return CopyFailed
	}
	return CopySaved
}

// copyFolder is the folder of the sent copy, or "" and the sent_copy word
// that says why there is none.
func (o *Outbox) copyFolder(ctx context.Context) (string, string) {
	folder, err := o.sentFolder(ctx)
	switch {
	case err != nil:
		o.log.Warn("sent copy: no Sent folder", "err", err)
		return "", CopyFailed
	case folder == "" && o.opts.SaveSent == "true":
		o.log.Warn("sent copy: SAVE_SENT=true but the account has no Sent folder (set SENT_FOLDER)")
		return "", CopyFailed
	case folder == "":
		return "", CopySkipped
	}
	return folder, ""
}

// sentNames are usual names of a Sent folder without the attribute.
var sentNames = []string{"Sent", "Sent Items", "Sent Messages", "Sent Mail", "INBOX.Sent", "INBOX/Sent", "[Gmail]/Sent Mail"}

// sentFolder is SENT_FOLDER, the \Sent folder, or a folder with a usual
// Sent name; "" when there is none.
func (o *Outbox) sentFolder(ctx context.Context) (string, error) {
	if o.opts.SentFolder != "" {
		return o.opts.SentFolder, nil
	}
	folders, err := o.store.ListFolders(ctx, false) // one LIST for both looks
	if err != nil {
		return "", err
	}
	return specialFolder(folders, `\Sent`, sentNames), nil
}

// specialFolder is the folder with the special-use attribute use, else
// the first with one of names (any case), else "".
func specialFolder(folders []imap.Folder, use string, names []string) string {
	for _, f := range folders {
		if strings.EqualFold(f.SpecialUse, use) {
			return f.Name
		}
	}
	for _, name := range names {
		for _, f := range folders {
			if strings.EqualFold(f.Name, name) {
				return f.Name
			}
		}
	}
	return ""
}
