package imap

import (
	"context"
	"fmt"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// MatchCount is what CountMatches reports of one search.
type MatchCount struct {
	Total         int       // messages that match
	OldestUID     uint32    // the lowest matching UID; 0 when none matches
	NewestUID     uint32    // the highest matching UID; 0 when none matches
	NewestArrival time.Time // its INTERNALDATE; zero when none matches
}

// CountMatches counts the messages of folder that match each of crits, and
// finds the newest of each, over one connection. With ESEARCH the searches
// go out pipelined, each as UID SEARCH RETURN (COUNT MIN MAX), and one UID FETCH
// of INTERNALDATE covers every newest message: two round trips (three on a
// reused selection, which is synced first) whatever the number of searches,
// where a Search per criteria costs two each. Without ESEARCH the searches
// run one after the other. At most MaxPageSize criteria; none: no I/O.
func (c *Client) CountMatches(ctx context.Context, folder string, crits []SearchCriteria) ([]MatchCount, error) {
	op := fmt.Sprintf("count %d searches in %q", len(crits), folder)
	err := checkFolder(folder)
	if err == nil && len(crits) > MaxPageSize {
		err = fmt.Errorf("%d searches, at most %d: %w", len(crits), MaxPageSize, ErrInvalid)
	}
	criteria := make([]*goimap.SearchCriteria, len(crits))
	for i := range crits {
		if err == nil {
			criteria[i], err = crits[i].imap()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out := make([]MatchCount, len(crits))
	if len(crits) == 0 {
		return out, nil
	}
	err = c.do(ctx, op, func(cn *conn) error {
		if _, err := cn.selectCurrent(folder, false); err != nil {
			return err
		}
		if err := countAll(cn, criteria, out); err != nil {
			return err
		}
		return newestArrivals(cn, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// countAll fills the totals and newest UIDs of out, one search per criteria.
func countAll(cn *conn, criteria []*goimap.SearchCriteria, out []MatchCount) error {
	if !cn.caps.Has(goimap.CapESearch) {
		for i, crit := range criteria {
			uids, err := searchUIDs(cn, crit)
			if err != nil {
				return err
			}
			out[i].Total = len(uids)
			if len(uids) > 0 {
				out[i].OldestUID, out[i].NewestUID = slices.Min(uids), slices.Max(uids)
			}
		}
		return nil
	}
	// Pipelined: every command is sent before the first answer is read. Each
	// ESEARCH answer names its command's tag. Every command is waited for,
	// so that none is left pending on the connection.
	cmds := make([]*imapclient.SearchCommand, len(criteria))
	for i, crit := range criteria {
		cmds[i] = cn.ic.UIDSearch(crit, &goimap.SearchOptions{ReturnCount: true, ReturnMin: true, ReturnMax: true})
	}
	var first error
	for i, cmd := range cmds {
		data, err := cmd.Wait()
		if err != nil {
			if first == nil {
				first = fmt.Errorf("uid search: %w", err)
			}
			continue
		}
		out[i].Total, out[i].OldestUID, out[i].NewestUID = int(data.Count), data.Min, data.Max
	}
	return first
}

// newestArrivals fetches the INTERNALDATE of every NewestUID of out with
// one UID FETCH. A message expunged meanwhile keeps a zero arrival.
func newestArrivals(cn *conn, out []MatchCount) error {
	var uids []uint32
	for _, m := range out {
		if m.NewestUID != 0 {
			uids = append(uids, m.NewestUID)
		}
	}
	if len(uids) == 0 {
		return nil
	}
	bufs, err := collect(cn, cn.ic.Fetch(uidSet(uids), &goimap.FetchOptions{UID: true, InternalDate: true}))
	if err != nil {
		return fmt.Errorf("uid fetch: %w", err)
	}
	arrival := make(map[uint32]time.Time, len(bufs))
	for _, b := range bufs {
		arrival[uint32(b.UID)] = b.InternalDate
	}
	for i := range out {
		out[i].NewestArrival = arrival[out[i].NewestUID]
	}
	return nil
}
