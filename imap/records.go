package imap

import (
	"context"
	"fmt"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
)

// Record is one small message of a folder that keeps state in the mailbox
// (the tools' send records): its UID, its INTERNALDATE (the server's clock
// when it was stored, whole seconds) and, when asked for, its bytes.
type Record struct {
	UID  uint32
	Date time.Time
	Raw  []byte
}

// RecordQuery says which records Records returns: every message not marked
// \Deleted, or with Header and Value those whose header field Header
// contains Value (IMAP SEARCH HEADER, a substring match: callers compare
// again). Raw asks for the bytes of each, at most MaxRecordBytes.
type RecordQuery struct {
	Header, Value string
	Raw           bool
}

// MaxRecordBytes bounds the bytes Records returns of one record.
const MaxRecordBytes = 64 << 10

// Records returns the records of folder that q selects, by UID ascending.
//
// It SELECTs the folder and, on a kept selection, syncs it with a NOOP
// first, so that every message stored before the call (by any session)
// is seen: a record's rank among the others by UID is then the same for
// every caller. One UID SEARCH, then one UID FETCH (UID INTERNALDATE, and
// BODY.PEEK[]<0.64 KiB> with q.Raw) of what it found.
func (c *Client) Records(ctx context.Context, folder string, q RecordQuery) ([]Record, error) {
	op := fmt.Sprintf("records of %q", folder)
	if err := checkFolder(folder); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	crit := &goimap.SearchCriteria{NotFlag: []goimap.Flag{goimap.FlagDeleted}}
	if q.Header != "" {
		crit.Header = []goimap.SearchCriteriaHeaderField{{Key: q.Header, Value: q.Value}}
	}
	var out []Record
	err := c.do(ctx, op, func(cn *conn) error {
		if _, err := cn.selectCurrent(folder, true); err != nil {
			return err
		}
		uids, err := searchUIDs(cn, crit)
		if err != nil || len(uids) == 0 {
			out = nil
			return err
		}
		out, err = fetchRecords(cn, uids, q.Raw)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fetchRecords fetches the UID and INTERNALDATE (and the first
// MaxRecordBytes of each with raw) of uids in the selected folder.
func fetchRecords(cn *conn, uids []uint32, raw bool) ([]Record, error) {
	opts := &goimap.FetchOptions{UID: true, InternalDate: true}
	if raw {
		opts.BodySection = []*goimap.FetchItemBodySection{{Peek: true, Partial: &goimap.SectionPartial{Size: MaxRecordBytes}}}
	}
	bufs, err := collect(cn, cn.ic.Fetch(uidSet(uids), opts))
	if err != nil {
		return nil, fmt.Errorf("uid fetch: %w", err)
	}
	out := make([]Record, 0, len(bufs))
	for _, b := range bufs {
		if b.UID == 0 {
			continue
		}
		r := Record{UID: uint32(b.UID), Date: b.InternalDate}
		for _, s := range b.BodySection {
			r.Raw = s.Bytes
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return int(int64(a.UID) - int64(b.UID)) })
	return out, nil
}

// Remove expunges exactly the messages uids of folder: UID STORE
// +FLAGS.SILENT (\Deleted), its answer awaited, then UID EXPUNGE of those
// UIDs alone (UIDPLUS). Other messages marked \Deleted stay; a UID that is
// gone already is no error. A server without UIDPLUS gets ErrUnsupported
// (a plain EXPUNGE would remove the others too).
func (c *Client) Remove(ctx context.Context, folder string, uids []uint32) error {
	op := fmt.Sprintf("remove %d messages from %q", len(uids), folder)
	err := checkFolder(folder)
	if err == nil {
		err = checkUIDList(uids, maxMoveMany)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, func(cn *conn) error {
		if !cn.caps.Has(goimap.CapUIDPlus) {
			return fmt.Errorf("%w: the server has no UIDPLUS, and a plain EXPUNGE could remove other messages", ErrUnsupported)
		}
		// UIDs newer than a kept view would be left alone: sync it first.
		if _, err := cn.selectCurrent(folder, true); err != nil {
			return err
		}
		return removeOriginal(cn, uidSet(uids))
	})
}
