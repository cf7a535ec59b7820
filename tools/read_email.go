package tools

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// AttachmentInfo is one attachment of read_email's result.
type AttachmentInfo struct {
	Index       int    `json:"index" jsonschema:"0-based: download_attachment's attachment_index"`
	Filename    string `json:"filename" jsonschema:"file name as the sender gave it (untrusted)"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes" jsonschema:"decoded size as download_attachment saves it (estimated past the message's first MiB: base64 within 2 bytes, quoted-printable at most this)"`
	Inline      bool   `json:"inline" jsonschema:"shown inside the body (e.g. an embedded image) rather than offered as a file"`
}

// ReadResult is read_email's result.
type ReadResult struct {
	UID        uint32           `json:"uid"`
	ID         string           `json:"id"`
	Folder     string           `json:"folder"`
	MessageID  string           `json:"message_id"`
	Subject    string           `json:"subject" jsonschema:"untrusted text"`
	From       string           `json:"from"`
	To         []string         `json:"to"`
	Cc         []string         `json:"cc"`
	ReplyTo    []string         `json:"reply_to"`
	Date       string           `json:"date" jsonschema:"RFC 3339"`
	InReplyTo  string           `json:"in_reply_to"`
	References []string         `json:"references"`
	Flags      []string         `json:"flags"`
	BodyText   string           `json:"body_text" jsonschema:"untrusted text: readable text of the body (HTML-only mail rendered to text, links kept); one window of max_chars characters from offset"`
	BodyHTML   *string          `json:"body_html,omitempty" jsonschema:"untrusted HTML, same window (format html or both)"`
	Truncated  bool             `json:"truncated" jsonschema:"more body follows: call again with offset=next_offset"`
	NextOffset *int             `json:"next_offset,omitempty"`
	Hidden     bool             `json:"hidden_characters_removed,omitempty" jsonschema:"invisible, bidi or control characters were removed from a field of this result (body or header)"`
	Incomplete bool             `json:"body_incomplete,omitempty" jsonschema:"the body is longer than email-mcp reads of one text part (8 MiB): it ends early, and no window reaches past that"`
	Attachment []AttachmentInfo `json:"attachments"`
	// Bounds (SECURITY.md): what a sender wrote is cut, and these say where.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early"`
	ToTotal          *int `json:"to_total,omitempty" jsonschema:"set when to lists only the first 100 recipients: the number found (at least this many)"`
	CcTotal          *int `json:"cc_total,omitempty" jsonschema:"as to_total, for cc"`
	ReplyToTotal     *int `json:"reply_to_total,omitempty" jsonschema:"as to_total, for reply_to"`
	ReferencesTotal  *int `json:"references_total,omitempty" jsonschema:"set when references keeps only the last 50 ids (or left out ids over 998 bytes): the number of ids in the header"`
	AttachmentsTotal *int `json:"attachments_total,omitempty" jsonschema:"set when attachments lists only the first 200: the number of attachments"`
}

// MarkHidden sets hidden_characters_removed: the cleaning of the result
// removed something (mcpkit.HiddenMarker).
func (r *ReadResult) MarkHidden() { r.Hidden = true }

var _ mcpkit.HiddenMarker = (*ReadResult)(nil)

type readArgs struct {
	UID      *UID   `json:"uid"`
	Folder   string `json:"folder"`
	Format   string `json:"format"`
	MaxChars *int   `json:"max_chars"`
	Offset   int    `json:"offset"`
	MarkRead bool   `json:"mark_read"`
}

const (
	defaultMaxChars = 20000
	maxMaxChars     = 500000
	// readPrefix is how much of a message one FETCH brings with its
	// structure: all of typical mail; bigger mail gets its text parts only.
	readPrefix = 1 << 20
	// maxTextPart bounds a text part fetched on its own.
	maxTextPart = 8 << 20
)

func readEmailSpec(mail Mailbox, readOnly bool) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "read_email",
		Title: "Read an email",
		Description: "Read one message: headers, the body as readable text (HTML-only mail is rendered to text with its links), optionally the HTML, and the list of attachments. " +
			"Long bodies come in windows of max_chars characters: when truncated is true, call again with offset=next_offset. " +
			"Reading never marks the message as read unless mark_read is true." + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Idempotent: true, OpenWorld: true,
		AuditIf: "mark_read",
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), mcpkit.Types("integer", "string"), mcp.Description("message UID (number or numeric string) or its id msg_<uidvalidity>_<uid>")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithString("format", mcp.DefaultString("text"), mcp.Enum("text", "html", "both"), mcp.Description("text: body_text; html: body_html; both")),
			mcp.WithInteger("max_chars", mcp.DefaultNumber(defaultMaxChars), mcp.Min(1), mcp.Max(maxMaxChars), mcp.Description("characters of body per call")),
			mcp.WithInteger("offset", mcp.DefaultNumber(0), mcp.Min(0), mcp.Description("character offset into the body (next_offset of the previous call)")),
			mcp.WithBoolean("mark_read", mcp.DefaultBool(false), mcp.Description("also mark the message as read")),
		},
		Output: mcp.WithOutputSchema[ReadResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args readArgs) (any, error) {
			if readOnly && args.MarkRead {
				return nil, mcpkit.Errorf(mcpkit.CodeReadOnly, "mark_read is not available: the server is in read-only mode")
			}
			return readEmail(ctx, mail, args)
		}),
	}
}

func readEmail(ctx context.Context, mail Mailbox, args readArgs) (*ReadResult, error) {
	folder, err := checkFolder(args.Folder, "folder")
	if err != nil {
		return nil, err
	}
	maxChars := defaultMaxChars
	if args.MaxChars != nil {
		maxChars = *args.MaxChars
	}
	if maxChars < 1 || maxChars > maxMaxChars || args.Offset < 0 {
		return nil, mcpkit.InvalidArg("max_chars must be from 1 to %d and offset at least 0", maxMaxChars)
	}
	format := args.Format
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "html" && format != "both" {
		return nil, mcpkit.InvalidArg("format must be text, html or both")
	}
	d, err := mail.ReadMessage(ctx, folder, args.UID.UID, imap.ReadOptions{
		PrefixBytes: readPrefix, MaxPartBytes: maxTextPart, UIDValidity: args.UID.Validity, MarkSeen: args.MarkRead,
	})
	if err != nil {
		return nil, messageError(err, folder, args.UID.UID)
	}
	out := readResult(folder, d.Message, d.Header)
	out.Attachment, out.AttachmentsTotal = attachmentList(d.Attachments)
	window(out, d.Bodies, format, args.Offset, maxChars)
	out.Incomplete = d.Incomplete
	return out, nil
}

// messageError names the message in MESSAGE_NOT_FOUND.
func messageError(err error, folder string, uid uint32) error {
	if errors.Is(err, imap.ErrMessageNotFound) && !errors.Is(err, imap.ErrFolderNotFound) {
		return mcpkit.Errorf(mcpkit.CodeMessageNotFound, "no message with uid %d in %q (it may have been moved or deleted)", uid, folder)
	}
	return folderError(err, folder)
}

func readResult(folder string, msg *imap.Message, hdr message.Header) *ReadResult {
	out := &ReadResult{
		UID: msg.UID, ID: msgID(msg.UIDValidity, msg.UID), Folder: folder,
		MessageID: message.BoundID(hdr.MessageID), From: message.FirstAddress(hdr.From, messageAddr),
		Date: mcpkit.FormatTime(hdr.Date), Flags: nonNil(msg.Flags), Attachment: []AttachmentInfo{},
	}
	out.Subject, out.SubjectTruncated = message.BoundSubject(hdr.Subject, false)
	out.To, out.ToTotal = message.BoundAddresses(hdr.To, message.MaxAddresses, false, messageAddr)
	out.Cc, out.CcTotal = message.BoundAddresses(hdr.Cc, message.MaxAddresses, false, messageAddr)
	out.ReplyTo, out.ReplyToTotal = message.BoundAddresses(hdr.ReplyTo, message.MaxAddresses, false, messageAddr)
	refs, n := message.BoundIDs(hdr.References, message.MaxReferences)
	out.References = nonNil(refs)
	if n > 0 {
		out.ReferencesTotal = &n
	}
	if len(hdr.InReplyTo) > 0 {
		out.InReplyTo = message.BoundID(hdr.InReplyTo[0])
	}
	if out.Date == "" {
		out.Date = mcpkit.FormatTime(msg.InternalDate)
	}
	var names []string // a hidden character in a field the bounds clean unsaid
	if msg.Structure != nil {
		for _, p := range msg.Structure.Attachments() {
			names = append(names, p.Filename)
		}
	}
	out.Hidden = message.HiddenInHeader(hdr, names...)
	return out
}

// window cuts the bodies to one window and fills the truncation fields.
func window(out *ReadResult, b message.Bodies, format string, offset, maxChars int) {
	w := message.WindowBodies(b, format != "html", format != "text", offset, maxChars)
	out.BodyText, out.BodyHTML, out.Hidden = w.Text, w.HTML, out.Hidden || w.Hidden
	if w.Next >= 0 {
		out.Truncated, out.NextOffset = true, &w.Next
	}
}

// attachmentList lists the attachments (imap.Display's, in the order
// download_attachment indexes them), at most message.MaxAttachments.
func attachmentList(all []imap.Attachment) ([]AttachmentInfo, *int) {
	out := []AttachmentInfo{}
	kept, total := message.BoundList(all, message.MaxAttachments)
	for i, a := range kept {
		out = append(out, AttachmentInfo{
			Index: i, Filename: message.BoundName(clean(a.Filename)), ContentType: message.BoundContentType(a.Part.SafeMediaType()),
			SizeBytes: a.DecodedSize, Inline: a.IsEmbedded() || a.Disposition == "inline",
		})
	}
	if total == 0 {
		return out, nil
	}
	return out, &total
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
