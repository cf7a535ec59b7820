package imap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	goimap "github.com/emersion/go-imap/v2"
)

// MaxPageSize is the largest PageRequest.Limit.
const MaxPageSize = 1000

// SearchCriteria selects messages; the zero value matches every message.
// Every set field must match (AND).
type SearchCriteria struct {
	// From, To, Subject, Body and Text match as substrings, case-insensitively
	// on most servers (IMAP SEARCH FROM, TO, SUBJECT, BODY, TEXT). Text
	// searches headers and body. Non-ASCII terms are sent with CHARSET UTF-8.
	From, To, Subject, Body, Text string
	// Since and Before compare the date part of INTERNALDATE (the arrival
	// date): Since is inclusive, Before exclusive. Only the date of the value
	// in its own location counts; the zero time means unset.
	Since, Before time.Time
	// Unread and Flagged test \Seen (inverted) and \Flagged; nil means unset.
	Unread, Flagged *bool
	// HasAttachments is decided by the server, approximately: true matches
	// messages whose header has Content-Type "multipart/mixed", false the
	// others. The exact answer for each message found is
	// Summary.HasAttachments, from its BODYSTRUCTURE; the two can disagree
	// (a multipart/mixed with text parts only, an attachment in a
	// multipart/related), and results are not filtered again so that Total
	// and paging stay what the server counted.
	HasAttachments *bool
	// MessageID matches the Message-ID header as a substring; angle
	// brackets around it are ignored.
	MessageID string
	// Recipient matches as a substring any of the headers a message may
	// name its recipient in: To, Cc, Delivered-To, X-Original-To and
	// Envelope-To (an OR of IMAP HEADER searches). It finds mail for a
	// sub-address that came in Bcc or through a list, where To does not
	// name it, as long as the receiving server records the envelope
	// recipient in one of those headers.
	Recipient string
}

// recipientHeaders are the headers Recipient searches.
var recipientHeaders = []string{"To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To"}

// PageRequest asks for one page of results, newest first.
type PageRequest struct {
	Limit int // 1..MaxPageSize
	// BeforeUID is the cursor: only UIDs below it are returned; 0 starts
	// with the newest message. Pass the previous page's NextBeforeUID.
	BeforeUID uint32
	// UIDValidity, when not 0, must be the folder's UIDVALIDITY, else the
	// search fails with ErrUIDValidityChanged: a cursor is only meaningful
	// within one UIDVALIDITY.
	UIDValidity uint32
	// UIDsOnly leaves the page's Summaries with their UID alone: no UID
	// FETCH, for callers that fetch the messages themselves.
	UIDsOnly bool
}

// SearchResult is one page of a search.
type SearchResult struct {
	Folder      string
	UIDValidity uint32
	Total       int       // every match in the folder, whatever the cursor
	Messages    []Summary // newest (highest UID) first
	// NextBeforeUID is the cursor of the next page; 0 when this page is the
	// last.
	NextBeforeUID uint32
}

// Search finds messages in folder and returns one page of their summaries,
// newest first.
//
// It costs a constant number of commands whatever the folder size: EXAMINE
// (unless the connection has the folder selected already), one UID SEARCH
// that returns every matching UID (RETURN (ALL) as ranges when the server
// has ESEARCH), and one UID FETCH of the page's UIDs only. An empty folder
// or an empty page needs no FETCH. A refused search is an error, never zero
// results; NO [BADCHARSET] to a non-ASCII term is ErrSearchCharset (not
// retried without the charset: the term could not be sent as ASCII).
func (c *Client) Search(ctx context.Context, folder string, crit SearchCriteria, page PageRequest) (*SearchResult, error) {
	criteria, err := crit.imap()
	if err == nil {
		err = checkFolder(folder)
	}
	if err == nil && (page.Limit < 1 || page.Limit > MaxPageSize) {
		err = fmt.Errorf("limit %d not in 1..%d: %w", page.Limit, MaxPageSize, ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", folder, err)
	}
	var res *SearchResult
	err = c.do(ctx, fmt.Sprintf("search %q", folder), func(cn *conn) error {
		var err error
		res, err = search(cn, folder, criteria, page)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// search runs Search on cn; only UIDs above after count.
func search(cn *conn, folder string, criteria *goimap.SearchCriteria, page PageRequest) (*SearchResult, error) {
	sel, fresh, err := cn.selectFolder(folder, false)
	if err != nil {
		return nil, err
	}
	if page.UIDValidity != 0 && page.UIDValidity != sel.uidValidity {
		return nil, fmt.Errorf("%w: the cursor is for %d, the folder has %d", ErrUIDValidityChanged, page.UIDValidity, sel.uidValidity)
	}
	res := &SearchResult{Folder: sel.name, UIDValidity: sel.uidValidity}
	if fresh && sel.messages == 0 {
		return res, nil
	}
	if !fresh && byFlags(criteria) {
		// Flag changes come as unsolicited FETCH responses, which
		// imapclient hands over on goroutines of their own, too late to
		// count: sync first (see selection).
		if err := cn.sync(); err != nil {
			return nil, err
		}
	}
	if mb := cn.ic.Mailbox(); mb != nil {
		cn.known.Store(mb.NumMessages)
	}
	seen := cn.changes.Load()
	uids, err := searchUIDs(cn, criteria)
	if err == nil && !fresh && cn.changes.Load() != seen {
		// The view this search ran on predated changes the server
		// reported at its end (see selection): search the new view.
		uids, err = searchUIDs(cn, criteria)
	}
	if err != nil {
		return nil, err
	}
	res.Total = len(uids)
	var pageUIDs []uint32
	pageUIDs, res.NextBeforeUID = pageOf(uids, page)
	if len(pageUIDs) == 0 {
		return res, nil
	}
	if page.UIDsOnly {
		res.Messages = make([]Summary, len(pageUIDs))
		for i, u := range pageUIDs {
			res.Messages[i].UID = u
		}
		return res, nil
	}
	res.Messages, err = fetchSummaries(cn, pageUIDs)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// byFlags reports whether c selects by flags anywhere (unread, flagged).
func byFlags(c *goimap.SearchCriteria) bool {
	if len(c.Flag) > 0 || len(c.NotFlag) > 0 {
		return true
	}
	for i := range c.Not {
		if byFlags(&c.Not[i]) {
			return true
		}
	}
	for _, or := range c.Or {
		if byFlags(&or[0]) || byFlags(&or[1]) {
			return true
		}
	}
	return false
}

// searchUIDs runs one UID SEARCH and returns the matching UIDs.
func searchUIDs(cn *conn, criteria *goimap.SearchCriteria) ([]uint32, error) {
	var opts *goimap.SearchOptions
	if cn.caps.Has(goimap.CapESearch) {
		opts = &goimap.SearchOptions{ReturnAll: true} // ranges, not one number per message
	}
	data, err := cn.ic.UIDSearch(criteria, opts).Wait()
	if err != nil {
		return nil, fmt.Errorf("uid search: %w", err)
	}
	all := data.AllUIDs()
	uids := make([]uint32, len(all))
	for i, u := range all {
		uids[i] = uint32(u)
	}
	return uids, nil
}

// above keeps the UIDs greater than after: a search of UID after+1:*
// also matches the last message when after+1 is beyond it.
func above(uids []uint32, after uint32) []uint32 {
	return slices.DeleteFunc(uids, func(u uint32) bool { return u <= after })
}

// pageOf sorts uids newest first and returns the page below the cursor and
// the next cursor (0 when nothing follows).
func pageOf(uids []uint32, page PageRequest) (out []uint32, next uint32) {
	slices.Sort(uids)
	slices.Reverse(uids)
	uids = slices.Compact(uids)
	start := 0
	if page.BeforeUID != 0 {
		for start < len(uids) && uids[start] >= page.BeforeUID {
			start++
		}
	}
	rest := uids[start:]
	if len(rest) > page.Limit {
		out = rest[:page.Limit]
		return out, out[len(out)-1]
	}
	return rest, 0
}

// imap converts the criteria; it refuses strings that no IMAP string can
// carry (NUL).
func (sc SearchCriteria) imap() (*goimap.SearchCriteria, error) {
	c := &goimap.SearchCriteria{}
	for _, s := range []string{sc.From, sc.To, sc.Subject, sc.Body, sc.Text, sc.MessageID, sc.Recipient} {
		if strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("search term with a NUL byte: %w", ErrInvalid)
		}
	}
	addHeader(c, "From", sc.From)
	addHeader(c, "To", sc.To)
	addHeader(c, "Subject", sc.Subject)
	addHeader(c, "Message-ID", strings.Trim(strings.TrimSpace(sc.MessageID), "<>"))
	if sc.Recipient != "" {
		either := make([]goimap.SearchCriteria, len(recipientHeaders))
		for i, h := range recipientHeaders {
			addHeader(&either[i], h, sc.Recipient)
		}
		c.And(anyOf(either))
	}
	if sc.Body != "" {
		c.Body = append(c.Body, sc.Body)
	}
	if sc.Text != "" {
		c.Text = append(c.Text, sc.Text)
	}
	if !sc.Since.IsZero() {
		c.Since = dateOnly(sc.Since)
	}
	if !sc.Before.IsZero() {
		c.Before = dateOnly(sc.Before)
	}
	if sc.Unread != nil {
		addFlag(c, goimap.FlagSeen, !*sc.Unread)
	}
	if sc.Flagged != nil {
		addFlag(c, goimap.FlagFlagged, *sc.Flagged)
	}
	if sc.HasAttachments != nil {
		mixed := goimap.SearchCriteriaHeaderField{Key: "Content-Type", Value: "multipart/mixed"}
		if *sc.HasAttachments {
			c.Header = append(c.Header, mixed)
		} else {
			c.Not = append(c.Not, goimap.SearchCriteria{Header: []goimap.SearchCriteriaHeaderField{mixed}})
		}
	}
	return c, nil
}

// anyOf is the OR of cs (at least one): OR a (OR b (OR c d)).
func anyOf(cs []goimap.SearchCriteria) *goimap.SearchCriteria {
	if len(cs) == 1 {
		return &cs[0]
	}
	return &goimap.SearchCriteria{Or: [][2]goimap.SearchCriteria{{cs[0], *anyOf(cs[1:])}}}
}

func addHeader(c *goimap.SearchCriteria, key, value string) {
	if value != "" {
		c.Header = append(c.Header, goimap.SearchCriteriaHeaderField{Key: key, Value: value})
	}
}

func addFlag(c *goimap.SearchCriteria, f goimap.Flag, set bool) {
	if set {
		c.Flag = append(c.Flag, f)
	} else {
		c.NotFlag = append(c.NotFlag, f)
	}
}

// dateOnly keeps the date of t in its own location.
func dateOnly(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
