// Package outbox is the send domain of email-mcp: the From address, the
// messages composed for smtp, the guardrails of every send (recipient
// counts, SEND_ALLOWED_RECIPIENTS, SEND_MAX_PER_HOUR with its exact cap
// over every replica), idempotency keys, the Sent copy and the drafts of
// the Drafts folder.
//
// It knows nothing of MCP: the tools bind arguments, call an [Outbox] or
// [Drafts] operation and shape the result. Failures are [*Error] values
// whose [Kind] the tools map to their stable codes, with the text kept.
// The mailbox is reached through the interfaces declared here
// ([Sender], [SentStore], [SendLogStore], [DraftStore]); imap.Client and
// smtp.Sender satisfy them.
package outbox

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/smtp"
)

// Sender is the SMTP side of a send (smtp.Sender).
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

// Options configure the send domain.
type Options struct {
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
	CopySaved    = "saved"
	CopySkipped  = "skipped"
	CopyFailed   = "failed"
	CopyDisabled = "disabled"
)

// Outbox sends composed messages and files their sent copies.
type Outbox struct {
	sender Sender
	store  SentStore
	opts   Options
	policy *policy
	sends  *sendLog // the cap's and the idempotency keys' records
	log    *slog.Logger
}

// New prepares the send domain. When store can keep records (an
// imap.Client can), SEND_MAX_PER_HOUR and idempotency keys live in the
// mailbox; without one the cap is the process's alone and keys are refused.
// describe tells how a tool reports an error, for the stored result of a
// key whose send may have been delivered.
func New(sender Sender, store SentStore, opts Options, describe Describe, log *slog.Logger) *Outbox {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := newPolicy(opts.AllowedRecipients, opts.MaxPerHour)
	sends := &sendLog{perHour: opts.MaxPerHour, local: p, log: log, describe: describe}
	if rs, ok := store.(SendLogStore); ok {
		sends.store = rs
	}
	return &Outbox{sender: sender, store: store, opts: opts, policy: p, sends: sends, log: log}
}

// Address is the account's own address, the From of every send.
func (o *Outbox) Address() string { return o.opts.From }

// Sent is what a submission answered: the mail went to Accepted.
type Sent struct {
	MessageID string
	Accepted  []string
	Rejected  []smtp.Rejection
	SentCopy  string // CopySaved, CopySkipped, CopyFailed or CopyDisabled
}

// From is our own address with display name name, or the default one.
func (o *Outbox) From(name string) (smtp.Address, error) {
	if name == "" {
		name = o.opts.FromName
	}
	if containsControl(name) {
		return smtp.Address{}, invalid("from_name must be one line of text")
	}
	return smtp.Address{Name: name, Email: o.opts.From}, nil
}

// Send submits m through the guardrails and, after a successful
// submission, keeps the sent copy. A failed copy never turns a sent
// message into an error.
func (o *Outbox) Send(ctx context.Context, m *smtp.Message) (*Sent, error) {
	if err := m.Validate(); err != nil {
		return nil, sendError(err)
	}
	env, err := o.CheckRecipients(m, "the message")
	if err != nil {
		return nil, err
	}
	res, err := o.submit(ctx, env, m)
	if err != nil {
		return nil, err
	}
	return &Sent{MessageID: m.ID(), Accepted: res.Accepted, Rejected: res.Rejected, SentCopy: o.keepCopy(ctx, m)}, nil
}

// submit sends msg to env within the hourly cap: a send that certainly
// delivered nothing gives its reservation back.
func (o *Outbox) submit(ctx context.Context, env smtp.Envelope, msg io.WriterTo) (smtp.Result, error) {
	release, err := o.sends.reserve(ctx)
	if err != nil {
		return smtp.Result{}, err
	}
	res, err := o.sender.Send(ctx, env, msg)
	if err != nil {
		if nothingSent(err) {
			release()
		}
		return smtp.Result{}, sendError(err)
	}
	return res, nil
}

// CheckRecipients applies the recipient rules of every sending path to m:
// at most MaxRecipients, each one on the allow-list; what names the
// message in the error ("the message", "the reply", "the draft"). It
// returns m's envelope.
func (o *Outbox) CheckRecipients(m *smtp.Message, what string) (smtp.Envelope, error) {
	if err := CheckRecipientCount(m, what); err != nil {
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

// sendError explains SMTP failures: an invalid argument says which field,
// a rejection lists the recipients; others keep their cause's code.
func sendError(err error) error {
	var rej *smtp.RejectedError
	switch {
	case errors.Is(err, smtp.ErrMaybeDelivered):
		// Not retryable: sending again could deliver it twice.
		return &Error{Kind: KindCause, Message: "the connection failed after the whole message was sent, before the mail server confirmed it: " +
			"it may have been delivered; check (for example with the recipient, or in Sent) before sending it again", Cause: err,
			Details: map[string]any{"retryable": false, "maybe_delivered": true}}
	case errors.Is(err, smtp.ErrInvalidArgument):
		return &Error{Kind: KindInvalid, Message: TrimInvalid(err), Cause: err}
	case errors.As(err, &rej):
		rejected := []string{}
		for _, r := range rej.Result.Rejected {
			rejected = append(rejected, r.Address)
		}
		msg := "the mail server refused the message; nothing was sent"
		if rej.Code == 0 {
			// Refused here before the server was asked: the reason is ours
			// (no SMTPUTF8 for a non-ASCII address), not server text.
			msg = rej.Reason + ": write the addresses in ASCII; nothing was sent"
		}
		return &Error{Kind: KindRejected, Message: msg,
			Cause: err, Details: map[string]any{"accepted": []string{}, "rejected": rejected}}
	case errors.Is(err, smtp.ErrTooLarge):
		return &Error{Kind: KindTooLarge, Message: "the message is larger than the mail server accepts", Cause: err}
	}
	return err
}
