package tools

import (
	"context"
	"io"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// ForwardResult is forward_email's result.
type ForwardResult struct {
	SendResult
	To          []string `json:"to"`
	Cc          []string `json:"cc"`
	Subject     string   `json:"subject"`
	Mode        string   `json:"mode" jsonschema:"inline or attachment"`
	Attachments int      `json:"attachments" jsonschema:"files of the original carried along (inline), or 1: the original itself (attachment)"`
	// Bounds (SECURITY.md), as in reply_email.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early here (the forward carries it whole)"`
	ToTotal          *int `json:"to_total,omitempty" jsonschema:"set when to lists only the first 100 recipients: their number"`
	CcTotal          *int `json:"cc_total,omitempty" jsonschema:"as to_total, for cc"`
	// DraftID is set with draft=true: the forward was saved, not sent.
	DraftID string `json:"draft_id,omitempty" jsonschema:"with draft true: the saved draft (nothing was sent; send_draft sends it)"`
}

type forwardArgs struct {
	UID    *UID       `json:"uid"`
	Folder string     `json:"folder"`
	To     StringList `json:"to"`
	Cc     StringList `json:"cc"`
	Bcc    StringList `json:"bcc"`
	Body   string     `json:"body" max:"-"`
	Mode   string     `json:"mode"`
	Draft  bool       `json:"draft"`
	// IdempotencyKey makes a repeat answer the first result (outbox/keys.go).
	IdempotencyKey string `json:"idempotency_key"`
}

// forwardStore is what forward_email needs of the IMAP side beyond
// Mailbox (imap.Client has it).
type forwardStore interface {
	StreamMessage(ctx context.Context, folder string, uid uint32, w io.Writer) (int64, error)
	AddKeywords(ctx context.Context, folder string, uids []uint32, keywords []string) (map[uint32][]string, error)
}

var _ forwardStore = (*imap.Client)(nil)

// Forward modes.
const (
	forwardInline     = "inline"
	forwardAttachment = "attachment"
)

func forwardEmailSpec(mail Mailbox, o *outbox.Outbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "forward_email",
		Title: "Forward an email",
		Description: "Forward a message to new recipients, with an optional note above it. mode=inline quotes its header and body (text, and HTML when it has one) " +
			"and re-attaches its attachments unchanged; mode=attachment sends the original whole as a .eml. " +
			"Subject \"Fwd: …\"; the original gets $Forwarded. To answer the sender, use reply_email." + sendLimitsNote + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("the message to forward: UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			toParam(true), ccParam(), bccParam("blind copies: never written in the message"),
			mcp.WithString("body", mcp.Description("optional plain-text note above the forwarded message")),
			mcp.WithString("mode", mcp.Enum(forwardInline, forwardAttachment), mcp.DefaultString(forwardInline)),
			mcp.WithBoolean("draft", mcp.DefaultBool(false), mcp.Description("save the forward in Drafts instead of sending it (send_draft sends it)")),
			idempotencyParam(),
		},
		Output: mcp.WithOutputSchema[ForwardResult](),
		Handle: bound(func(ctx context.Context, args forwardArgs) (any, error) {
			return o.Once(ctx, "forward_email", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				return forward(ctx, mail, o, args)
			})
		}),
	}
}

func forward(ctx context.Context, mail Mailbox, o *outbox.Outbox, a forwardArgs) (*ForwardResult, error) {
	folder, mode, fs, err := forwardSource(mail, a)
	if err != nil {
		return nil, err
	}
	m, err := o.Forward(outbox.Message{To: a.To, Cc: a.Cc, Bcc: a.Bcc})
	if err != nil {
		return nil, err
	}
	orig, hdr, err := original(ctx, mail, folder, a.UID)
	if err != nil {
		return nil, err
	}
	m.Subject = smtp.ForwardSubject(hdr.Subject)
	if mode == forwardInline {
		err = quoteInline(ctx, mail, folder, orig, hdr, m, a.Body)
	} else {
		m.Text = a.Body
		m.Attachments = []smtp.Attachment{messageAttachment(ctx, fs, folder, orig, hdr.Subject)}
	}
	if err != nil {
		return nil, err
	}
	if a.Draft {
		return forwardDraft(ctx, mail, o, m, mode)
	}
	sent, err := o.Send(ctx, m)
	if err != nil {
		return nil, err
	}
	if _, err := fs.AddKeywords(context.WithoutCancel(ctx), folder, []uint32{orig.UID}, []string{"$Forwarded"}); err != nil {
		o.Logger().Warn("forward sent but $Forwarded not set", "uid", orig.UID, "err", err)
	}
	return forwardResult(sendResult(sent), m, mode), nil
}

// forwardSource checks the arguments that name what is forwarded and how:
// the folder, the mode and the message, and a mailbox that can stream it.
func forwardSource(mail Mailbox, a forwardArgs) (folder, mode string, fs forwardStore, err error) {
	if folder, err = checkFolder(a.Folder, "folder"); err != nil {
		return "", "", nil, err
	}
	mode = a.Mode
	if mode == "" {
		mode = forwardInline
	}
	if mode != forwardInline && mode != forwardAttachment {
		return "", "", nil, invalidArg("mode must be inline or attachment (got %q)", truncate(mode, 40))
	}
	if a.UID == nil {
		return "", "", nil, invalidArg("uid is required")
	}
	fs, ok := mail.(forwardStore)
	if !ok {
		return "", "", nil, errorf(CodeInternal, "this mailbox cannot forward messages")
	}
	return folder, mode, fs, nil
}

// original reads the message a reply or a forward answers: its first
// readPrefix bytes, its UIDVALIDITY checked, and its header.
func original(ctx context.Context, mail Mailbox, folder string, uid *UID) (*imap.Message, message.Header, error) {
	orig, err := mail.FetchMessage(ctx, folder, uid.UID, readPrefix)
	if err != nil {
		return nil, message.Header{}, messageError(err, folder, uid.UID)
	}
	if err := checkValidity(*uid, orig.UIDValidity, folder); err != nil {
		return nil, message.Header{}, err
	}
	hdr, _ := message.ParseHeader(orig.Raw)
	return orig, hdr, nil
}

// forwardResult shapes a forward sent or saved.
func forwardResult(sent SendResult, m *smtp.Message, mode string) *ForwardResult {
	out := &ForwardResult{SendResult: sent, Mode: mode, Attachments: len(m.Attachments)}
	out.To, out.ToTotal = boundAddresses(m.To, message.MaxAddresses, false, smtpAddr)
	out.Cc, out.CcTotal = boundAddresses(m.Cc, message.MaxAddresses, false, smtpAddr)
	out.Subject, out.SubjectTruncated = boundSubject(m.Subject, false)
	return out
}

// quoteInline fills m with the note, the quoted header block and text of
// the original (and its HTML, sanitized, when it has one: outbox.ForwardHTML),
// and its attachments, each streamed from the server and
// decoded on the way: the decoded bytes sent are the original's.
func quoteInline(ctx context.Context, mail Mailbox, folder string, orig *imap.Message, hdr message.Header, m *smtp.Message, note string) error {
	bodies, _, err := messageBodies(ctx, mail, folder, orig)
	if err != nil {
		return messageError(err, folder, orig.UID)
	}
	fh := smtp.ForwardedHeader{
		From: outbox.Author(hdr), Date: hdr.Date, Subject: hdr.Subject, To: outbox.Addresses(hdr.To), Cc: outbox.Addresses(hdr.Cc),
	}
	block := smtp.ForwardBlock(fh, clean(bodies.Text))
	if note != "" {
		block = note + "\n\n" + block
	}
	m.Text = block
	if bodies.HTML != "" { // an HTML original is forwarded with an HTML part too
		m.HTML = outbox.ForwardHTML(fh, note, bodies.HTML)
	}
	if orig.Structure == nil {
		return nil
	}
	for i, p := range orig.Structure.Attachments() {
		att, err := partAttachment(ctx, mail, folder, orig.UID, p, i)
		if err != nil {
			return downloadError(err, folder, orig.UID)
		}
		m.Attachments = append(m.Attachments, att)
	}
	return nil
}

// partAttachment makes attachment p of message uid an smtp.Attachment whose
// content is streamed from the server and decoded on each Open. Its exact
// decoded size is counted first, by streaming it once: the composer needs
// it before it writes, and BODYSTRUCTURE gives only the encoded size.
func partAttachment(ctx context.Context, mail Mailbox, folder string, uid uint32, p *imap.Part, index int) (smtp.Attachment, error) {
	stream := func(w io.Writer) error { return imap.StreamAttachment(ctx, mail, folder, uid, p, w) }
	var n countWriter
	if err := stream(&n); err != nil {
		return smtp.Attachment{}, err
	}
	return smtp.Attachment{
		Filename:    forwardName(p, index),
		ContentType: forwardType(p),
		Size:        int64(n),
		// A forwarded message inside the original keeps its bytes too.
		Embedded: p.SafeMediaType() == "message/rfc822" && slices.Contains([]string{"", "7bit", "8bit", "binary"}, p.Encoding),
		Open: func() (io.ReadCloser, error) {
			pr, pw := io.Pipe()
			go func() { pw.CloseWithError(stream(pw)) }()
			return pr, nil
		},
	}, nil
}

// messageAttachment is the original, whole and unchanged, as a
// message/rfc822 attachment streamed from the server on each Open.
func messageAttachment(ctx context.Context, fs forwardStore, folder string, orig *imap.Message, subject string) smtp.Attachment {
	name := "forwarded.eml"
	if s := safeFileBase(subject); s != "" {
		name = s + ".eml"
	}
	return smtp.Attachment{
		Filename: name, ContentType: "message/rfc822", Size: orig.Size, Embedded: true,
		Open: func() (io.ReadCloser, error) {
			pr, pw := io.Pipe()
			go func() {
				_, err := fs.StreamMessage(ctx, folder, orig.UID, pw)
				pw.CloseWithError(err)
			}()
			return pr, nil
		},
	}
}

// forwardName is the attachment's file name as the sender gave it (one
// line, at most 255 bytes), else read_email's default name.
func forwardName(p *imap.Part, index int) string {
	name, _ := message.CleanLine(p.Filename)
	name = strings.TrimSpace(name)
	if name == "" {
		name = p.DefaultName(index)
	}
	return cutBytes(name, 255)
}

// forwardType is the part's media type, with its charset when it has one
// (the composer keeps utf-8 and us-ascii).
func forwardType(p *imap.Part) string {
	t := p.SafeMediaType()
	if cs := p.Params["charset"]; cs != "" && imap.IsToken(cs) {
		return mime.FormatMediaType(t, map[string]string{"charset": cs})
	}
	return t
}

// safeFileBase turns a subject into a file name base: at most 60
// characters, without path separators, control or reserved characters.
func safeFileBase(s string) string {
	s, _ = message.CleanLine(s)
	s = strings.Map(func(r rune) rune {
		if r < ' ' || strings.ContainsRune(`/\<>:"|?*`, r) {
			return '_'
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), ".")
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60])
	}
	return strings.TrimSpace(s)
}

// cutBytes cuts s to at most n bytes at a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// forwardDraft saves the composed forward in Drafts instead of sending it
// (draft=true), attachments streamed from the original as for a send. The
// original gets $Forwarded only when a forward is sent.
func forwardDraft(ctx context.Context, mail Mailbox, o *outbox.Outbox, m *smtp.Message, mode string) (*ForwardResult, error) {
	d, err := saveDraft(ctx, mail, o, m)
	if err != nil {
		return nil, err
	}
	out := forwardResult(notSent(d.MessageID), m, mode)
	out.DraftID = d.ID
	return out, nil
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
