package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// MessageSummary is one message in search_emails' result.
type MessageSummary struct {
	UID            uint32   `json:"uid" jsonschema:"message UID in the folder"`
	ID             string   `json:"id" jsonschema:"msg_<uidvalidity>_<uid>: a handle other tools accept as uid, valid while the folder is not recreated"`
	MessageID      string   `json:"message_id" jsonschema:"Message-ID header without angle brackets"`
	Subject        string   `json:"subject" jsonschema:"subject (untrusted text)"`
	From           string   `json:"from" jsonschema:"sender as Name <address>"`
	To             []string `json:"to"`
	Date           string   `json:"date" jsonschema:"RFC 3339: the Date header, else the arrival time"`
	Unread         bool     `json:"unread"`
	Flagged        bool     `json:"flagged"`
	HasAttachments bool     `json:"has_attachments"`
	Size           int64    `json:"size" jsonschema:"size of the whole message in bytes"`
	// Bounds (SECURITY.md): a sender's huge subject or To list is cut.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early (read_email has the rest up to its own bound)"`
	ToTotal          *int `json:"to_total,omitempty" jsonschema:"set when to lists only the first 20 recipients: the number found (at least this many)"`
}

// SearchResult is search_emails' result.
type SearchResult struct {
	Folder      string           `json:"folder"`
	UIDValidity uint32           `json:"uidvalidity"`
	Total       int              `json:"total" jsonschema:"number of matching messages in the folder"`
	Messages    []MessageSummary `json:"messages" jsonschema:"newest first"`
	NextCursor  *string          `json:"next_cursor" jsonschema:"pass as cursor for the next page; null on the last page"`
	HasMore     bool             `json:"has_more" jsonschema:"true when another page follows (next_cursor is set)"`
}

type searchArgs struct {
	Folder         string `json:"folder"`
	From           string `json:"from"`
	To             string `json:"to"`
	Subject        string `json:"subject"`
	Body           string `json:"body"`
	Text           string `json:"text"`
	Since          string `json:"since"`
	Before         string `json:"before"`
	Unread         *bool  `json:"unread"`
	Flagged        *bool  `json:"flagged"`
	HasAttachments *bool  `json:"has_attachments"`
	Limit          *int   `json:"limit"`
	Cursor         string `json:"cursor"`
}

const maxSearchLimit = 200

func searchEmailsSpec(mail Mailbox, defaultLimit int) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "search_emails",
		Title: "Search emails",
		Description: "Search a folder, newest first, with any combination of filters (all must match; text filters are substrings, as IMAP SEARCH). " +
			"Returns one page of summaries, the total count and next_cursor for the next page. Does not mark anything as read." + untrustedNote,
		Toolset:  ToolsetMail,
		ReadOnly: true, Idempotent: true, OpenWorld: true,
		Params: []mcp.ToolOption{
			mcp.WithString("folder", mcp.DefaultString("INBOX"), mcp.Description("folder to search, as list_folders names it")),
			mcp.WithString("from", mcp.Description("sender contains")),
			mcp.WithString("to", mcp.Description("recipient (To) contains")),
			mcp.WithString("subject", mcp.Description("subject contains")),
			mcp.WithString("body", mcp.Description("body contains")),
			mcp.WithString("text", mcp.Description("headers or body contain")),
			mcp.WithString("since", mcp.Description("arrived on or after this date: YYYY-MM-DD or RFC 3339 (date part used)")),
			mcp.WithString("before", mcp.Description("arrived before this date: YYYY-MM-DD or RFC 3339 (date part used)")),
			mcp.WithBoolean("unread", mcp.Description("true: only unread; false: only read")),
			mcp.WithBoolean("flagged", mcp.Description("true: only flagged; false: only not flagged")),
			mcp.WithBoolean("has_attachments", mcp.Description("true: only messages that look like they carry attachments (multipart/mixed); each result's has_attachments is exact")),
			mcp.WithInteger("limit", mcp.DefaultNumber(defaultLimit), mcp.Min(1), mcp.Max(maxSearchLimit), mcp.Description("page size")),
			mcp.WithString("cursor", mcp.Description("next_cursor of the previous page")),
		},
		Output: mcp.WithOutputSchema[SearchResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args searchArgs) (any, error) {
			return searchEmails(ctx, mail, args, defaultLimit)
		}),
	}
}

func searchEmails(ctx context.Context, mail Mailbox, args searchArgs, defaultLimit int) (*SearchResult, error) {
	folder, err := checkFolder(args.Folder, "folder")
	if err != nil {
		return nil, err
	}
	crit, err := searchCriteria(args)
	if err != nil {
		return nil, err
	}
	limit, err := mcpkit.Limit(args.Limit, defaultLimit, maxSearchLimit)
	if err != nil {
		return nil, err
	}
	page, err := imap.NewPager(args.Cursor, folder, crit, limit)
	if err != nil {
		return nil, err
	}
	res, err := mail.Search(ctx, folder, crit, page.Req)
	if err != nil {
		return nil, folderError(err, folder)
	}
	out := &SearchResult{Folder: folder, UIDValidity: res.UIDValidity, Total: res.Total, Messages: make([]MessageSummary, 0, len(res.Messages))}
	for _, m := range res.Messages {
		out.Messages = append(out.Messages, summary(res.UIDValidity, m))
	}
	out.NextCursor = page.Next(res)
	out.HasMore = out.NextCursor != nil
	return out, nil
}

func searchCriteria(a searchArgs) (imap.SearchCriteria, error) {
	c := imap.SearchCriteria{From: a.From, To: a.To, Subject: a.Subject, Body: a.Body, Text: a.Text,
		Unread: a.Unread, Flagged: a.Flagged, HasAttachments: a.HasAttachments}
	if err := mcpkit.CheckFilters(mcpkit.Filter{Name: "from", Value: a.From}, mcpkit.Filter{Name: "to", Value: a.To}, mcpkit.Filter{Name: "subject", Value: a.Subject},
		mcpkit.Filter{Name: "body", Value: a.Body}, mcpkit.Filter{Name: "text", Value: a.Text}); err != nil {
		return c, err
	}
	var err error
	if c.Since, err = parseDateArg(a.Since, "since"); err != nil {
		return c, err
	}
	if c.Before, err = parseDateArg(a.Before, "before"); err != nil {
		return c, err
	}
	if !c.Since.IsZero() && !c.Before.IsZero() && !c.Before.After(c.Since) {
		return c, mcpkit.InvalidArg("before must be later than since")
	}
	return c, nil
}

func summary(validity uint32, m imap.Summary) MessageSummary {
	subject, cut := message.BoundSubject(m.Subject, m.SubjectCut)
	to, toTotal := message.BoundAddresses(m.To, message.MaxSummaryAddresses, m.ToCut, imapAddr)
	return MessageSummary{
		UID: m.UID, ID: msgID(validity, m.UID), MessageID: message.BoundID(m.MessageID), Subject: subject, SubjectTruncated: cut,
		From: message.FirstAddress(m.From, imapAddr), To: to, ToTotal: toTotal, Date: mcpkit.FormatTime(m.Date),
		Unread: !m.Seen, Flagged: m.Flagged, HasAttachments: m.HasAttachments, Size: m.Size,
	}
}
