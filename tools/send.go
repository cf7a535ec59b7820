package tools

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// Sender is the SMTP side the send tools use (smtp.Sender).
type Sender interface {
	Send(ctx context.Context, env smtp.Envelope, msg io.WriterTo) (smtp.Result, error)
}

var _ Sender = (*smtp.Sender)(nil)

// SentStore is what the sent copy needs of the IMAP side.
type SentStore interface {
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	ListFolders(ctx context.Context, counts bool) ([]imap.Folder, error)
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
}

// SendOptions configure the send tools.
type SendOptions struct {
	From     string // the From address: SMTP_USER or INBOX_ADDRESS
	FromName string // DEFAULT_FROM_NAME
	// SaveSent is "auto" (keep a copy in the Sent folder when there is one
	// and the server did not file one itself), "true" (always; a missing Sent
	// folder is a failed copy) or "false".
	SaveSent   string
	SentFolder string // SENT_FOLDER; "" finds the \Sent folder
	// AllowedRecipients is SEND_ALLOWED_RECIPIENTS: addresses, domains and
	// *.domains mail may go to; empty allows anyone.
	AllowedRecipients []string
	// MaxPerHour is SEND_MAX_PER_HOUR: sends per sliding hour; 0 is no cap.
	MaxPerHour int
}

// Sent-copy outcomes, as send results report them.
const (
	copySaved    = "saved"
	copySkipped  = "skipped"
	copyFailed   = "failed"
	copyDisabled = "disabled"
)

// outbox sends composed messages and files their sent copies.
type outbox struct {
	sender Sender
	store  SentStore
	opts   SendOptions
	policy *sendPolicy
	sends  *sendLog // the cap's and the idempotency keys' records
	log    *slog.Logger
}

// newOutbox prepares the send tools. When store can keep records (an
// imap.Client can), SEND_MAX_PER_HOUR and idempotency_key live in the
// mailbox; without one the cap is the process's alone and keys are refused.
func newOutbox(sender Sender, store SentStore, opts SendOptions, log *slog.Logger) *outbox {
	policy := newSendPolicy(opts.AllowedRecipients, opts.MaxPerHour)
	sends := &sendLog{perHour: opts.MaxPerHour, local: policy, log: log}
	if rs, ok := store.(SendLogStore); ok {
		sends.store = rs
	}
	return &outbox{sender: sender, store: store, opts: opts, policy: policy, sends: sends, log: log}
}

// SendResult is send_email's result.
type SendResult struct {
	Success   bool     `json:"success"`
	MessageID string   `json:"message_id" jsonschema:"Message-ID of the sent mail, without angle brackets"`
	Accepted  []string `json:"accepted" jsonschema:"recipients the server accepted"`
	Rejected  []string `json:"rejected" jsonschema:"recipients the server refused (the mail went to the others)"`
	SentCopy  string   `json:"sent_copy" jsonschema:"saved, skipped (no Sent folder, or the server filed its own), failed, or disabled"`
	// Bounds (SECURITY.md): a reply-all to a huge list echoes only its start.
	AcceptedTotal *int `json:"accepted_total,omitempty" jsonschema:"set when accepted lists only the first 100: the number of accepted recipients"`
	RejectedTotal *int `json:"rejected_total,omitempty" jsonschema:"set when rejected lists only the first 100: the number of refused recipients"`
	// Replayed marks the first result of an idempotency_key, answered again:
	// this call sent nothing.
	Replayed bool `json:"replayed,omitempty" jsonschema:"true when this answers a repeat of an idempotency_key: the first send's result; nothing was sent again"`
}

// from is our own address with the display name of the call or the default.
func (o *outbox) from(name string) (smtp.Address, error) {
	if name == "" {
		name = o.opts.FromName
	}
	if containsControl(name) {
		return smtp.Address{}, invalidArg("from_name must be one line of text")
	}
	return smtp.Address{Name: name, Email: o.opts.From}, nil
}

// send submits m and, after a successful submission, keeps the sent copy.
// A failed copy never turns a sent message into an error.
func (o *outbox) send(ctx context.Context, m *smtp.Message) (*SendResult, error) {
	if err := m.Validate(); err != nil {
		return nil, sendError(err)
	}
	env, err := o.checkRecipients(m, "the message")
	if err != nil {
		return nil, err
	}
	release, err := o.sends.reserve(ctx)
	if err != nil {
		return nil, err
	}
	res, err := o.sender.Send(ctx, env, m)
	if err != nil {
		if nothingSent(err) {
			release()
		}
		return nil, sendError(err)
	}
	out := &SendResult{Success: true, MessageID: m.ID()}
	out.Accepted, out.AcceptedTotal = boundAddresses(res.Accepted, message.MaxAddresses, false, func(a string) (string, string) { return "", a })
	out.Rejected, out.RejectedTotal = boundAddresses(res.Rejected, message.MaxAddresses, false, func(r smtp.Rejection) (string, string) { return "", r.Address })
	out.SentCopy = o.keepCopy(ctx, m)
	return out, nil
}

// checkRecipients applies the recipient rules of every sending path to m:
// at most maxRecipients, each one on the allow-list; what names the
// message in the error. It returns m's envelope.
func (o *outbox) checkRecipients(m *smtp.Message, what string) (smtp.Envelope, error) {
	if err := checkRecipientCount(m, what); err != nil {
		return smtp.Envelope{}, err
	}
	env := m.Envelope()
	return env, o.policy.checkRecipients(env.To)
}

// nothingSent reports whether a failed send certainly delivered nothing, so
// that it need not count against SEND_MAX_PER_HOUR: every failure but a
// connection lost between the end of the message and the server's answer
// (smtp.ErrMaybeDelivered), which stays counted.
func nothingSent(err error) bool {
	return !errors.Is(err, smtp.ErrMaybeDelivered)
}

// sendError turns SMTP failures into tool errors: an invalid argument says
// which field, a rejection lists the recipients.
func sendError(err error) error {
	var rej *smtp.RejectedError
	switch {
	case errors.Is(err, smtp.ErrMaybeDelivered):
		// Not retryable: sending again could deliver it twice.
		return &Error{Code: classifyCode(err), Message: "the connection failed after the whole message was sent, before the mail server confirmed it: " +
			"it may have been delivered; check (for example with the recipient, or in Sent) before sending it again", Cause: err,
			Details: map[string]any{"retryable": false, "maybe_delivered": true}}
	case errors.Is(err, smtp.ErrInvalidArgument):
		return &Error{Code: CodeInvalidArgument, Message: trimInvalid(err), Cause: err}
	case errors.As(err, &rej):
		rejected := []string{}
		for _, r := range rej.Result.Rejected {
			rejected = append(rejected, r.Address)
		}
		return &Error{Code: CodeSendRejected, Message: "the mail server refused the message; nothing was sent",
			Cause: err, Details: map[string]any{"accepted": []string{}, "rejected": rejected}}
	case errors.Is(err, smtp.ErrTooLarge):
		return &Error{Code: CodeAttachmentTooLarge, Message: "the message is larger than the mail server accepts", Cause: err}
	}
	return err
}

// keepCopy appends the exact bytes that were sent to the Sent folder, with
// \Seen, unless a copy with the same Message-ID is already there.
func (o *outbox) keepCopy(ctx context.Context, m *smtp.Message) string {
	size, err := m.Size()
	if err != nil {
		o.log.Warn("sent copy failed", "err", err)
		return copyFailed
	}
	return o.fileSent(ctx, m.ID(), m.Date, size, func(w io.Writer) error { _, err := m.WriteTo(w); return err })
}

// fileSent is the Sent copy of every send (keepCopy, send_draft's): size
// bytes that write produces, dated date, filed with \Seen in the Sent
// folder unless the server filed its own copy of Message-ID id already.
// It answers the sent_copy word of the result.
func (o *outbox) fileSent(ctx context.Context, id string, date time.Time, size int64, write func(io.Writer) error) string {
	if o.opts.SaveSent == "false" || o.store == nil {
		return copyDisabled
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	folder, err := o.sentFolder(ctx)
	switch {
	case err != nil:
		o.log.Warn("sent copy: no Sent folder", "err", err)
		return copyFailed
	case folder == "" && o.opts.SaveSent == "true":
		o.log.Warn("sent copy: SAVE_SENT=true but the account has no Sent folder (set SENT_FOLDER)")
		return copyFailed
	case folder == "":
		return copySkipped
	}
	if id != "" {
		found, err := o.store.Search(ctx, folder, imap.SearchCriteria{MessageID: id}, imap.PageRequest{Limit: 1, UIDsOnly: true})
		if err == nil && found.Total > 0 {
			return copySkipped // the server filed its own (Gmail does)
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	_, err = o.store.Append(ctx, folder, []string{`\Seen`}, date, size, pr)
	pr.CloseWithError(err)
	if err != nil {
		o.log.Warn("sent copy failed", "folder", folder, "err", err)
		return copyFailed
	}
	return copySaved
}

// sentFolder is SENT_FOLDER, the \Sent folder, or a folder with a usual
// Sent name; "" when there is none.
func (o *outbox) sentFolder(ctx context.Context) (string, error) {
	if o.opts.SentFolder != "" {
		return o.opts.SentFolder, nil
	}
	folders, err := o.store.ListFolders(ctx, false) // one LIST for both looks
	if err != nil {
		return "", err
	}
	for _, f := range folders {
		if strings.EqualFold(f.SpecialUse, `\Sent`) {
			return f.Name, nil
		}
	}
	for _, name := range []string{"Sent", "Sent Items", "Sent Messages", "Sent Mail", "INBOX.Sent", "INBOX/Sent", "[Gmail]/Sent Mail"} {
		for _, f := range folders {
			if strings.EqualFold(f.Name, name) {
				return f.Name, nil
			}
		}
	}
	return "", nil
}
