package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// ThreadMessage is one message of get_thread's result.
type ThreadMessage struct {
	Folder    string `json:"folder"`
	UID       uint32 `json:"uid"`
	ID        string `json:"id" jsonschema:"msg_<uidvalidity>_<uid>: read_email, reply_email and forward_email take it as uid (with this folder)"`
	MessageID string `json:"message_id" jsonschema:"Message-ID header without angle brackets"`
	From      string `json:"from" jsonschema:"sender as Name <address>"`
	Date      string `json:"date" jsonschema:"RFC 3339: the Date header, else the arrival time"`
	Subject   string `json:"subject" jsonschema:"subject (untrusted text)"`
	Preview   string `json:"preview" jsonschema:"the start of the text, quoted lines left out, at most 200 characters (untrusted text)"`
	// Bounds (SECURITY.md), as in search_emails.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early"`
}

// ThreadResult is get_thread's result.
type ThreadResult struct {
	Total    int             `json:"total" jsonschema:"messages found in the conversation (one per Message-ID)"`
	Messages []ThreadMessage `json:"messages" jsonschema:"oldest first; over limit, the newest limit of them"`
	HasMore  bool            `json:"has_more" jsonschema:"true when older messages were left out (over limit)"`
	Omitted  int             `json:"omitted" jsonschema:"how many older messages were left out"`
	// Incomplete: the search stopped at its bounds (rounds, ids, messages).
	Incomplete bool     `json:"incomplete" jsonschema:"true when the conversation is larger than get_thread follows (1000 messages, 500 message ids, 10 rounds): more may exist"`
	Folders    []string `json:"folders" jsonschema:"the folders searched"`
}

type threadArgs struct {
	UID    *UID   `json:"uid"`
	Folder string `json:"folder"`
	Limit  *int   `json:"limit"`
}

// threadStore is what get_thread needs of the IMAP side beyond Mailbox
// (imap.Client has it).
type threadStore interface {
	Thread(ctx context.Context, folder string, uid uint32, o imap.ThreadOptions) (*imap.Thread, error)
}

var _ threadStore = (*imap.Client)(nil)

// Bounds of get_thread (the search's own are imap.Thread's).
const (
	defaultThreadLimit = 50
	maxThreadLimit     = 200
	previewChars       = 200
)

func getThreadSpec(mail Mailbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "get_thread",
		Title: "Get a conversation",
		Description: "The whole conversation of a message, oldest first: every message linked to it by Message-ID, In-Reply-To or References, " +
			"found in its folder, INBOX, Sent and Archive (what exists), with folder, uid, from, date, subject and a short preview. " +
			"Read one in full with read_email (its folder and id)." + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("a message of the conversation: UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithInteger("limit", mcp.DefaultNumber(defaultThreadLimit), mcp.Min(1), mcp.Max(maxThreadLimit), mcp.Description("most messages returned (the newest)")),
		},
		Output: mcp.WithOutputSchema[ThreadResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args threadArgs) (any, error) { return getThread(ctx, mail, args) }),
	}
}

func getThread(ctx context.Context, mail Mailbox, a threadArgs) (*ThreadResult, error) {
	folder, err := checkFolder(a.Folder, "folder")
	if err != nil {
		return nil, err
	}
	limit, err := mcpkit.Limit(a.Limit, defaultThreadLimit, maxThreadLimit)
	if err != nil {
		return nil, err
	}
	ts, ok := mail.(threadStore)
	if !ok {
		return nil, mcpkit.Errorf(mcpkit.CodeInternal, "this mailbox cannot search conversations")
	}
	th, err := ts.Thread(ctx, folder, a.UID.UID, imap.ThreadOptions{UIDValidity: a.UID.Validity, Limit: limit})
	if err != nil {
		return nil, messageError(err, folder, a.UID.UID)
	}
	out := &ThreadResult{Total: th.Total, Incomplete: th.Incomplete, Folders: th.Folders, Messages: []ThreadMessage{},
		Omitted: th.Omitted, HasMore: th.Omitted > 0}
	for _, m := range th.Messages {
		tm := ThreadMessage{
			Folder: m.Folder, UID: m.UID, ID: msgID(m.UIDValidity, m.UID),
			MessageID: message.BoundID(m.Header.MessageID), From: message.FirstAddress(m.Header.From, messageAddr),
			Date: mcpkit.FormatTime(m.Time()), Preview: message.Preview(m.Text, previewChars),
		}
		tm.Subject, tm.SubjectTruncated = message.BoundSubject(m.Header.Subject, false)
		out.Messages = append(out.Messages, tm)
	}
	return out, nil
}
