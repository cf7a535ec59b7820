package outbox

import (
	"context"
	"io"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// A reply and a forward answer an original: a message of the mailbox,
// read here (its header, its text quoted, its parts carried along), so
// that a tool only names it and sends or saves what was composed.

// OriginalReader reads an original: its header and structure, and its
// text (imap.Client).
type OriginalReader interface {
	FetchMessage(ctx context.Context, folder string, uid uint32, prefixBytes int64) (*imap.Message, error)
	Bodies(ctx context.Context, folder string, m *imap.Message, maxPartBytes int64) (message.Bodies, bool, error)
}

// OriginalStore is what a reply needs of its original's mailbox: to read
// it and to mark it answered (imap.Client).
type OriginalStore interface {
	OriginalReader
	SetFlags(ctx context.Context, folder string, uids []uint32, ch imap.FlagChange) (map[uint32][]string, error)
}

// ForwardStore is what a forward needs of its original's mailbox: its
// parts, or the whole message, streamed, and to mark it forwarded
// (imap.Client).
type ForwardStore interface {
	OriginalReader
	StreamPart(ctx context.Context, folder string, uid uint32, path []int, w io.Writer) (int64, error)
	StreamMessage(ctx context.Context, folder string, uid uint32, w io.Writer) (int64, error)
	AddKeywords(ctx context.Context, folder string, uids []uint32, keywords []string) (map[uint32][]string, error)
}

var (
	_ OriginalStore = (*imap.Client)(nil)
	_ ForwardStore  = (*imap.Client)(nil)
)

// MaxQuotedPart bounds a text part of the original fetched on its own to
// be quoted, as read_email bounds one it shows.
const MaxQuotedPart = 8 << 20

// ReadOriginal reads the message a reply or a forward answers: its first
// PrefixBytes, its UIDVALIDITY checked against ref's, and its header.
func ReadOriginal(ctx context.Context, store OriginalReader, folder string, ref Ref) (*imap.Message, message.Header, error) {
	orig, err := store.FetchMessage(ctx, folder, ref.UID, PrefixBytes)
	if err != nil {
		return nil, message.Header{}, messageErr(err, folder, ref.UID)
	}
	if err := checkValidity(ref, orig.UIDValidity, folder); err != nil {
		return nil, message.Header{}, err
	}
	hdr, _ := message.ParseHeader(orig.Raw)
	return orig, hdr, nil
}

// quotedText is the original's text, hidden characters removed, as it is
// quoted: its text parts fetched when the prefix did not hold them.
func quotedText(ctx context.Context, store OriginalReader, folder string, orig *imap.Message) (message.Bodies, error) {
	bodies, _, err := store.Bodies(ctx, folder, orig, MaxQuotedPart)
	if err != nil {
		return message.Bodies{}, messageErr(err, folder, orig.UID)
	}
	bodies.Text, _ = message.CleanText(bodies.Text)
	return bodies, nil
}

// ReplyOptions are what the sender writes of a reply.
type ReplyOptions struct {
	Text, HTML string
	All        bool // also to the original's To and Cc
	Quote      bool // the original's text quoted below Text
}

// ComposeReply composes the reply to message ref of folder (Reply), its
// original quoted below it when r.Quote is set, and returns it with the
// original.
func (o *Outbox) ComposeReply(ctx context.Context, store OriginalStore, folder string, ref Ref, r ReplyOptions) (*smtp.Message, *imap.Message, error) {
	orig, hdr, err := ReadOriginal(ctx, store, folder, ref)
	if err != nil {
		return nil, nil, err
	}
	m, err := o.Reply(hdr, r.Text, r.HTML, r.All)
	if err != nil {
		return nil, nil, err
	}
	if r.Quote {
		bodies, err := quotedText(ctx, store, folder, orig)
		if err != nil {
			return nil, nil, err
		}
		m.Text += "\n\n" + smtp.QuoteBody(bodies.Text, smtp.Attribution(hdr.Date, Author(hdr)))
	}
	return m, orig, nil
}

// MarkAnswered sets \Answered on the original of a reply that was sent. A
// failure is logged, not returned: the reply went.
func (o *Outbox) MarkAnswered(ctx context.Context, store OriginalStore, folder string, uid uint32) {
	answered := true
	if _, err := store.SetFlags(context.WithoutCancel(ctx), folder, []uint32{uid}, imap.FlagChange{Answered: &answered}); err != nil {
		o.log.Warn("reply sent but \\Answered not set", "uid", uid, "err", err)
	}
}

// MarkForwarded sets $Forwarded on the original of a forward that was
// sent. A failure is logged, not returned: the forward went.
func (o *Outbox) MarkForwarded(ctx context.Context, store ForwardStore, folder string, uid uint32) {
	if _, err := store.AddKeywords(context.WithoutCancel(ctx), folder, []uint32{uid}, []string{"$Forwarded"}); err != nil {
		o.log.Warn("forward sent but $Forwarded not set", "uid", uid, "err", err)
	}
}
