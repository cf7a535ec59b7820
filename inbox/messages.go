package inbox

import (
	"context"

	"github.com/email-mcp/email-mcp/imap"
)

// Prefix is how much of each message the inboxes fetch to summarise it
// and find codes and links.
const Prefix = 256 << 10

// Filter selects an inbox's messages: subject and sender contain these
// (IMAP SEARCH), and HasOTP, when set, keeps only messages with (true) or
// without (false) a code found, from the page.
type Filter struct {
	Subject, Sender string
	HasOTP          *bool
}

// Criteria is the search of the inbox's messages that f selects: with the
// folder, what a page cursor is bound to.
func (ib *Inboxes) Criteria(in Inbox, f Filter) imap.SearchCriteria {
	return imap.SearchCriteria{Recipient: in.Address, Subject: f.Subject, From: f.Sender}
}

// Page is one page of an inbox's messages.
type Page struct {
	Mail []Mail // newest first, HasOTP applied
	// Search is the page's search result: its Total counts the messages
	// Criteria selects (before HasOTP), and it tells where the next page
	// starts.
	Search *imap.SearchResult
}

// Messages returns one page (req) of the inbox's messages that f selects,
// summarised with their extracts.
func (ib *Inboxes) Messages(ctx context.Context, in Inbox, f Filter, req imap.PageRequest) (*Page, error) {
	req.UIDsOnly = true // fetchSummaries fetches the messages whole
	res, err := ib.store.Search(ctx, ib.opts.Folder, ib.Criteria(in, f), req)
	if err != nil {
		return nil, inFolder(err, ib.opts.Folder)
	}
	all, err := ib.fetchSummaries(ctx, res)
	if err != nil {
		return nil, err
	}
	page := &Page{Mail: []Mail{}, Search: res}
	for _, m := range all {
		if _, found := m.FoundOTP(); f.HasOTP == nil || *f.HasOTP == found {
			page.Mail = append(page.Mail, m)
		}
	}
	return page, nil
}

// Latest returns the inbox named by id and its newest message (nil when it
// has none), without waiting.
func (ib *Inboxes) Latest(ctx context.Context, id string) (Inbox, *Mail, error) {
	in, err := ib.Resolve(ctx, id)
	if err != nil {
		return Inbox{}, nil, err
	}
	page, err := ib.Messages(ctx, in, Filter{}, imap.PageRequest{Limit: 1})
	if err != nil || len(page.Mail) == 0 {
		return in, nil, err
	}
	return in, &page.Mail[0], nil
}

// fetchSummaries fetches a search page's messages in one UID FETCH and
// summarises them, newest first.
func (ib *Inboxes) fetchSummaries(ctx context.Context, res *imap.SearchResult) ([]Mail, error) {
	if len(res.Messages) == 0 {
		return nil, nil
	}
	uids := make([]uint32, len(res.Messages))
	for i, m := range res.Messages {
		uids[i] = m.UID
	}
	fetched, err := ib.store.FetchMessages(ctx, ib.opts.Folder, uids, Prefix)
	if err != nil {
		return nil, inFolder(err, ib.opts.Folder)
	}
	byUID := make(map[uint32]*imap.Message, len(fetched))
	for _, m := range fetched {
		byUID[m.UID] = m
	}
	out := make([]Mail, 0, len(uids))
	for _, uid := range uids { // the search's order: newest first
		if m := byUID[uid]; m != nil {
			p := parsed{raw: m.Raw}
			out = append(out, p.mail(res.UIDValidity, m.UID, m.InternalDate, true))
		}
	}
	return out, nil
}
