package inbox

import (
	"context"
	"github.com/email-mcp/email-mcp/message"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// cutoff is where a wait starts: messages with a UID above afterUID (in the
// folder's UIDVALIDITY), and, for a time given as since (or a call without
// since, see fromStart), arrived at or after notBefore, except those from
// undated on: they are known to have arrived after the cutoff, whatever
// their INTERNALDATE says (0: none is). It is pinned once per call.
type cutoff struct {
	validity, afterUID uint32
	notBefore          time.Time
	undated            uint32
}

// admits reports whether a message after afterUID is after the cutoff.
func (c cutoff) admits(uid uint32, arrived time.Time) bool {
	return (c.undated != 0 && uid >= c.undated) || !arrived.Before(c.notBefore)
}

// nextSince is the since that continues after the last message a wait
// looked at: a retry with it misses nothing and repeats nothing.
func (c cutoff) nextSince(lastUID uint32) string {
	return imap.Ref{UID: max(lastUID, c.afterUID), Validity: c.validity}.ID()
}

// pinCutoff turns since into a cutoff for a call that started at start.
// Omitted: mail that arrives after the call started (see fromStart). 0:
// every message of the folder.
// An id: mail after that message (an unknown id is Invalid). A
// time: mail that arrived at or after it, by the server's arrival time
// (INTERNALDATE, never the Date header), which has whole seconds: a mail
// of the cutoff's own second counts, so that a cutoff taken just before a
// mail never loses it. Where the arrival order is known (a UIDNEXT this
// server read before the cutoff, mail a wait received or the folder's
// watcher saw before it), the messages that had arrived by then are
// before the cutoff, whatever their second.
func (ib *Inboxes) pinCutoff(ctx context.Context, since Since, start time.Time) (cutoff, error) {
	asked := time.Now() // no UID from next on had arrived by then
	validity, next, err := ib.store.UIDNext(ctx, ib.opts.Folder)
	if err != nil {
		return cutoff{}, inFolder(err, ib.opts.Folder)
	}
	pinned := time.Now() // every UID below next had arrived by now
	ib.arrivals.add(pinned, validity, next)
	ib.unseen.add(asked, validity, next)
	c := cutoff{validity: validity, afterUID: next - 1}
	switch since.kind {
	case sinceNone:
		return ib.fromStart(c, start, next), nil
	case sinceAll:
		c.afterUID = 0
		return c, nil
	case sinceID:
		if since.validity != validity || since.uid >= next {
			return cutoff{}, invalid("since %q is not a message id of this inbox's folder (it may be from before the folder was recreated)", message.Truncate(since.raw, 60))
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

// maxUndecided bounds the messages a wait without since decides by their
// arrival time (see fromStart): each is fetched to be looked at.
const maxUndecided = 1024

// fromStart is the cutoff of a wait without since: the mail that arrived
// after the call started. The UIDNEXT that c was made of was read later,
// as late as the pool answered: with 1,000 waits queued on
// IMAP_POOL_SIZE=3 it came seconds after the call, and mail delivered
// meanwhile fell before the cutoff (one wait in 1,000 timed out with its
// mail in the folder). So the cutoff is what was known at start: every
// UID from the lowest UIDNEXT asked for at or after start (by any call,
// this one's included, or by the watcher's NOOPs while others wait: a
// queued call asks long before the server reads it) arrived after the
// call; every UID below the
// highest UIDNEXT known by start (a call's, or the watcher's news)
// arrived before it. A message in between is taken when its INTERNALDATE
// is in a later second than start: one of start's own second may have
// come just before the call. With nothing known before start the cutoff
// is the first bound; at most maxUndecided messages are decided by date.
func (ib *Inboxes) fromStart(c cutoff, start time.Time, next uint32) cutoff {
	after := next
	if n := ib.unseen.from(start, c.validity); n > 0 {
		after = min(after, n)
	}
	if v, n := ib.store.ArrivedAfter(ib.opts.Folder, start); v == c.validity && n > 0 {
		after = min(after, n) // the watcher's NOOPs since start
	}
	known := ib.arrivals.before(start, c.validity)
	if v, n := ib.store.ArrivedBy(ib.opts.Folder, start); v == c.validity {
		known = max(known, n)
	}
	switch {
	case known == 0 || known >= after:
		known = after
	case after-known > maxUndecided:
		known = after - maxUndecided
	}
	c.afterUID = known - 1
	if known < after {
		c.notBefore, c.undated = start.Truncate(time.Second).Add(time.Second), after
	}
	return c
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
