package inbox

import (
	"context"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// cutoff is where a wait starts: messages with a UID above afterUID (in the
// folder's UIDVALIDITY), and, for a time given as since, arrived at or
// after notBefore. It is pinned once per call.
type cutoff struct {
	validity, afterUID uint32
	notBefore          time.Time
}

// nextSince is the since that continues after the last message a wait
// looked at: a retry with it misses nothing and repeats nothing.
func (c cutoff) nextSince(lastUID uint32) string {
	return imap.Ref{UID: max(lastUID, c.afterUID), Validity: c.validity}.ID()
}

// pinCutoff turns since into a cutoff. Omitted: mail that arrives after the
// call started (the folder's UIDNEXT now). 0: every message of the folder.
// An id: mail after that message (an unknown id is Invalid). A
// time: mail that arrived at or after it, by the server's arrival time
// (INTERNALDATE, never the Date header), which has whole seconds: a mail
// of the cutoff's own second counts, so that a cutoff taken just before a
// mail never loses it. Where the arrival order is known (a UIDNEXT this
// server read before the cutoff, mail a wait received or the folder's
// watcher saw before it), the messages that had arrived by then are
// before the cutoff, whatever their second.
func (ib *Inboxes) pinCutoff(ctx context.Context, since Since) (cutoff, error) {
	validity, next, err := ib.store.UIDNext(ctx, ib.opts.Folder)
	if err != nil {
		return cutoff{}, inFolder(err, ib.opts.Folder)
	}
	pinned := time.Now() // every UID below next had arrived by now
	ib.arrivals.add(pinned, validity, next)
	c := cutoff{validity: validity, afterUID: next - 1}
	switch since.kind {
	case sinceNone:
		return c, nil
	case sinceAll:
		c.afterUID = 0
		return c, nil
	case sinceID:
		if since.validity != validity || since.uid >= next {
			return cutoff{}, invalid("since %q is not a message id of this inbox's folder (it may be from before the folder was recreated)", truncate(since.raw, 60))
		}
		c.afterUID = since.uid
		return c, nil
	}
	c.notBefore = since.at.Truncate(time.Second)
	if !since.at.Before(pinned) {
		return c, nil // everything so far arrived before the cutoff
	}
	known := ib.arrivals.before(since.at, validity)
	if v, n := ib.store.ArrivedBy(ib.opts.Folder, since.at); v == validity {
		known = max(known, min(n, next)) // what the watcher saw arrive
	}
	if known > 0 {
		// Every UID below known arrived before the cutoff; the others are
		// decided by their arrival time.
		c.afterUID = known - 1 // known <= next
		return c, nil
	}
	oldest, err := ib.oldestSince(ctx, validity, next, since.at)
	if err != nil {
		return cutoff{}, err
	}
	c.afterUID = min(c.afterUID, oldest-1)
	return c, nil
}

// oldestSince is the lowest UID that may have arrived at or after t (next
// when none). Every message of the folder from that day on is a
// candidate; the arrival time decides. SEARCH SINCE compares the date of
// each INTERNALDATE in its own zone: a server west of UTC dates a message
// that arrived at 01:30Z the day before. The UTC day of t - 14 h covers
// every zone (the westernmost is UTC-12). Only the lowest matching UID
// matters: UID SEARCH RETURN (MIN).
func (ib *Inboxes) oldestSince(ctx context.Context, validity, next uint32, t time.Time) (uint32, error) {
	day := t.UTC().Add(-maxZoneOffset)
	if oldest, ok := ib.oldest.get(validity, day); ok {
		return oldest, nil
	}
	counts, err := ib.store.CountMatches(ctx, ib.opts.Folder, []imap.SearchCriteria{{Since: day}})
	if err != nil {
		return 0, inFolder(err, ib.opts.Folder)
	}
	// None found: the mail to come is after next-1.
	oldest := counts[0].OldestUID
	if oldest == 0 {
		oldest = next
	}
	ib.oldest.put(validity, day, oldest)
	return oldest, nil
}

// maxZoneOffset bounds the UTC offsets in use (UTC-12 to UTC+14).
const maxZoneOffset = 14 * time.Hour

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// defaultTimeout is a wait's timeout when none is given.
const defaultTimeout = 60 * time.Second

// clampTimeout applies the default (60 s) and WAIT_MAX_SECONDS.
func (ib *Inboxes) clampTimeout(seconds *float64) (time.Duration, error) {
	d := defaultTimeout
	if seconds != nil {
		if *seconds <= 0 {
			return 0, invalid("timeout must be a positive number of seconds")
		}
		// Compared in seconds before the conversion: a huge timeout
		// overflowed time.Duration to a negative one and the wait ended at
		// once instead of being capped.
		switch max := ib.opts.WaitMax; {
		case max > 0 && *seconds >= max.Seconds():
			return max, nil
		case *seconds >= maxDuration.Seconds():
			return maxDuration, nil
		}
		d = time.Duration(*seconds * float64(time.Second))
	}
	if ib.opts.WaitMax > 0 && d > ib.opts.WaitMax {
		d = ib.opts.WaitMax
	}
	return d, nil
}
