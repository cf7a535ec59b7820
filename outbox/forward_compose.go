package outbox

import (
	"context"
	"io"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/smtp"
)

// ForwardOptions are what the sender writes of a forward.
type ForwardOptions struct {
	To, Cc, Bcc []string
	Note        string // plain text above the forwarded message
	// Whole sends the original unchanged as a message/rfc822 attachment;
	// otherwise it is quoted inline with its attachments carried along.
	Whole bool
}

// ComposeForward composes the forward of message ref of folder to the
// recipients of f, checked before the original is read (Forward), and
// returns it with the original. Its attachments are streamed from the
// server when the message is written, never held whole.
func (o *Outbox) ComposeForward(ctx context.Context, store ForwardStore, folder string, ref Ref, f ForwardOptions) (*smtp.Message, *imap.Message, error) {
	m, err := o.Forward(Message{To: f.To, Cc: f.Cc, Bcc: f.Bcc})
	if err != nil {
		return nil, nil, err
	}
	orig, hdr, err := ReadOriginal(ctx, store, folder, ref)
	if err != nil {
		return nil, nil, err
	}
	m.Subject = smtp.ForwardSubject(hdr.Subject)
	if f.Whole {
		m.Text = f.Note
		m.Attachments = []smtp.Attachment{wholeAttachment(ctx, store, folder, orig, hdr.Subject)}
		return m, orig, nil
	}
	if err := quoteInline(ctx, store, folder, orig, hdr, m, f.Note); err != nil {
		return nil, nil, err
	}
	return m, orig, nil
}

// quoteInline fills m with the note, the quoted header block and text of
// the original (and its HTML, sanitized, when it has one: ForwardHTML),
// and its attachments, each streamed from the server and decoded on the
// way: the decoded bytes sent are the original's.
func quoteInline(ctx context.Context, store ForwardStore, folder string, orig *imap.Message, hdr message.Header, m *smtp.Message, note string) error {
	bodies, err := quotedText(ctx, store, folder, orig)
	if err != nil {
		return err
	}
	fh := smtp.ForwardedHeader{
		From: Author(hdr), Date: hdr.Date, Subject: hdr.Subject, To: Addresses(hdr.To), Cc: Addresses(hdr.Cc),
	}
	block := smtp.ForwardBlock(fh, bodies.Text)
	if note != "" {
		block = note + "\n\n" + block
	}
	m.Text = block
	if bodies.HTML != "" { // an HTML original is forwarded with an HTML part too
		m.HTML = ForwardHTML(fh, note, bodies.HTML)
	}
	if orig.Structure == nil {
		return nil
	}
	for i, p := range orig.Structure.Attachments() {
		att, err := partAttachment(ctx, store, folder, orig.UID, p, i)
		if err != nil {
			return &Error{Kind: KindPart, Cause: err, Folder: folder, UID: orig.UID}
		}
		m.Attachments = append(m.Attachments, att)
	}
	return nil
}

// partAttachment makes attachment p of message uid an smtp.Attachment whose
// content is streamed from the server and decoded on each Open. Its exact
// decoded size is counted first, by streaming it once: the composer needs
// it before it writes, and BODYSTRUCTURE gives only the encoded size.
func partAttachment(ctx context.Context, store ForwardStore, folder string, uid uint32, p *imap.Part, index int) (smtp.Attachment, error) {
	stream := func(w io.Writer) error { return imap.StreamAttachment(ctx, store, folder, uid, p, w) }
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

// wholeAttachment is the original, whole and unchanged, as a
// message/rfc822 attachment streamed from the server on each Open.
func wholeAttachment(ctx context.Context, store ForwardStore, folder string, orig *imap.Message, subject string) smtp.Attachment {
	name := "forwarded.eml"
	if s := safeFileBase(subject); s != "" {
		name = s + ".eml"
	}
	return smtp.Attachment{
		Filename: name, ContentType: "message/rfc822", Size: orig.Size, Embedded: true,
		Open: func() (io.ReadCloser, error) {
			pr, pw := io.Pipe()
			go func() {
				_, err := store.StreamMessage(ctx, folder, orig.UID, pw)
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
	name, _ = message.BoundBytes(name, 255)
	return name
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

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
