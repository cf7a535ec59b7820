package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
)

// inboxPrefix is how much of each message the inbox tools fetch to
// summarise it and find codes and links.
const inboxPrefix = 256 << 10

// ListMessagesResult is list_messages' result.
type ListMessagesResult struct {
	InboxID    string         `json:"inbox_id"`
	Address    string         `json:"address"`
	Total      int            `json:"total" jsonschema:"messages for this inbox matching subject_contains and sender (before has_otp)"`
	Messages   []InboxMessage `json:"messages" jsonschema:"newest first"`
	NextCursor *string        `json:"next_cursor"`
	HasMore    bool           `json:"has_more" jsonschema:"true when another page follows (next_cursor is set)"`
}

type listMessagesArgs struct {
	InboxID         string `json:"inbox_id"`
	HasOTP          *bool  `json:"has_otp"`
	SubjectContains string `json:"subject_contains"`
	Sender          string `json:"sender"`
	Limit           *int   `json:"limit"`
	Cursor          string `json:"cursor"`
}

func listMessagesSpec(ib *inboxes) *spec {
	return &spec{
		name:  "list_messages",
		title: "List a test inbox's messages",
		description: "List the messages sent to a test inbox, newest first, each with the one-time code (otp) and action link (magic_link) found in it. " +
			"Links are never followed." + inboxNote,
		toolset:  ToolsetInbox,
		readOnly: true, idempotent: true, openWorld: true,
		params: []mcp.ToolOption{
			inboxIDParam(),
			mcp.WithBoolean("has_otp", mcp.Description("true: only messages with a code; false: only without (filters the page)")),
			mcp.WithString("subject_contains"),
			mcp.WithString("sender", mcp.Description("sender address or name contains")),
			mcp.WithInteger("limit", mcp.DefaultNumber(20), mcp.Min(1), mcp.Max(100)),
			mcp.WithString("cursor"),
		},
		output: mcp.WithOutputSchema[ListMessagesResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args listMessagesArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			return ib.listMessages(ctx, args)
		},
	}
}

func (ib *inboxes) listMessages(ctx context.Context, a listMessagesArgs) (*ListMessagesResult, error) {
	n := 20
	if a.Limit != nil {
		n = *a.Limit
	}
	if n < 1 || n > 100 {
		return nil, invalidArg("limit must be from 1 to 100")
	}
	if err := checkFilters(filter{"subject_contains", a.SubjectContains}, filter{"sender", a.Sender}); err != nil {
		return nil, err
	}
	if _, _, err := ib.parseID(a.InboxID); err != nil {
		return nil, err // bad arguments first, before any I/O
	}
	tag, addr, err := ib.resolve(ctx, a.InboxID)
	if err != nil {
		return nil, err
	}
	crit := imap.SearchCriteria{Recipient: addr, Subject: a.SubjectContains, From: a.Sender}
	page, err := newPager(a.Cursor, ib.opts.Folder, crit, n)
	if err != nil {
		return nil, err
	}
	req := page.req
	req.UIDsOnly = true // fetchSummaries fetches the messages whole
	res, err := ib.store.Search(ctx, ib.opts.Folder, crit, req)
	if err != nil {
		return nil, folderError(err, ib.opts.Folder)
	}
	msgs, err := ib.fetchSummaries(ctx, res)
	if err != nil {
		return nil, err
	}
	out := &ListMessagesResult{InboxID: tag, Address: addr, Total: res.Total, Messages: []InboxMessage{}, NextCursor: page.next(res)}
	out.HasMore = out.NextCursor != nil
	for _, m := range msgs {
		if a.HasOTP == nil || *a.HasOTP == (m.OTP != nil) {
			out.Messages = append(out.Messages, m)
		}
	}
	return out, nil
}

// fetchSummaries fetches a search page's messages in one UID FETCH and
// summarises them, newest first.
func (ib *inboxes) fetchSummaries(ctx context.Context, res *imap.SearchResult) ([]InboxMessage, error) {
	if len(res.Messages) == 0 {
		return nil, nil
	}
	uids := make([]uint32, len(res.Messages))
	for i, m := range res.Messages {
		uids[i] = m.UID
	}
	fetched, err := ib.store.FetchMessages(ctx, ib.opts.Folder, uids, inboxPrefix)
	if err != nil {
		return nil, folderError(err, ib.opts.Folder)
	}
	byUID := make(map[uint32]*imap.Message, len(fetched))
	for _, m := range fetched {
		byUID[m.UID] = m
	}
	out := make([]InboxMessage, 0, len(uids))
	for _, uid := range uids { // the search's order: newest first
		if m := byUID[uid]; m != nil {
			out = append(out, inboxMessage(res.UIDValidity, m.UID, m.InternalDate, m.Raw))
		}
	}
	return out, nil
}

// GetLatestResult is get_latest's result.
type GetLatestResult struct {
	InboxID string        `json:"inbox_id"`
	Message *InboxMessage `json:"message" jsonschema:"the newest message, or null when the inbox is empty"`
}

func getLatestSpec(ib *inboxes) *spec {
	return &spec{
		name:        "get_latest",
		title:       "Get a test inbox's newest message",
		description: "Return the newest message of a test inbox with its code and link, or null, without waiting." + inboxNote,
		toolset:     ToolsetInbox,
		readOnly:    true, idempotent: true, openWorld: true,
		params: []mcp.ToolOption{inboxIDParam()},
		output: mcp.WithOutputSchema[GetLatestResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args inboxIDArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			one := 1
			l, err := ib.listMessages(ctx, listMessagesArgs{InboxID: args.InboxID, Limit: &one})
			if err != nil {
				return nil, err
			}
			out := &GetLatestResult{InboxID: l.InboxID}
			if len(l.Messages) > 0 {
				out.Message = &l.Messages[0]
			}
			return out, nil
		},
	}
}

// matches applies subject_contains and sender to a summary.
func matches(m InboxMessage, subject, sender string) bool {
	return (subject == "" || strings.Contains(strings.ToLower(m.Subject), strings.ToLower(subject))) &&
		(sender == "" || strings.Contains(strings.ToLower(m.From), strings.ToLower(sender)))
}

// resolveWait checks a wait's filters and resolves its inbox: the one call
// the wait handlers make before they pin their cutoff.
func (ib *inboxes) resolveWait(ctx context.Context, a waitArgs) (addr string, err error) {
	if err := checkFilters(filter{"subject_contains", a.SubjectContains}, filter{"sender", a.Sender}); err != nil {
		return "", err
	}
	_, addr, err = ib.resolve(ctx, a.InboxID)
	return addr, err
}
