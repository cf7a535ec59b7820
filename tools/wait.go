package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

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
	return fmt.Sprintf("msg_%d_%d", c.validity, max(lastUID, c.afterUID))
}

// pinCutoff turns since into a cutoff. Omitted: mail that arrives after the
// call started (the folder's UIDNEXT now). 0: every message of the folder.
// An id: mail after that message (an unknown id is INVALID_ARGUMENT). A
// time: mail that arrived at or after it, by the server's arrival time
// (INTERNALDATE, never the Date header), which has whole seconds: a mail
// of the cutoff's own second counts, so that a cutoff taken just before a
// mail never loses it. Where the arrival order is known (a UIDNEXT this
// server read before the cutoff, mail a wait received or the folder's
// watcher saw before it), the messages that had arrived by then are
// before the cutoff, whatever their second.
func (ib *inboxes) pinCutoff(ctx context.Context, since Since) (cutoff, error) {
	validity, next, err := ib.store.UIDNext(ctx, ib.opts.Folder)
	if err != nil {
		return cutoff{}, folderError(err, ib.opts.Folder)
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
			return cutoff{}, invalidArg("since %q is not a message id of this inbox's folder (it may be from before the folder was recreated)", truncate(since.raw, 60))
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
	// Every message of the folder from that day on is a candidate; the
	// arrival time decides. SEARCH SINCE compares the date of each
	// INTERNALDATE in its own zone: a server west of UTC dates a message
	// that arrived at 01:30Z the day before. The UTC day of t - 14 h covers
	// every zone (the westernmost is UTC-12). Only the lowest matching UID matters:
	// UID SEARCH RETURN (MIN).
	day := since.at.UTC().Add(-maxZoneOffset)
	oldest, ok := ib.oldest.get(validity, day)
	if !ok {
		counts, err := ib.store.CountMatches(ctx, ib.opts.Folder, []imap.SearchCriteria{{Since: day}})
		if err != nil {
			return cutoff{}, folderError(err, ib.opts.Folder)
		}
		// None found: the mail to come is after next-1.
		if oldest = counts[0].OldestUID; oldest == 0 {
			oldest = next
		}
		ib.oldest.put(validity, day, oldest)
	}
	c.afterUID = min(c.afterUID, oldest-1)
	return c, nil
}

// maxZoneOffset bounds the UTC offsets in use (UTC-12 to UTC+14).
const maxZoneOffset = 14 * time.Hour

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// clampTimeout applies the default (60 s) and WAIT_MAX_SECONDS.
func (ib *inboxes) clampTimeout(seconds *float64) (time.Duration, error) {
	d := 60 * time.Second
	if seconds != nil {
		if *seconds <= 0 {
			return 0, invalidArg("timeout must be a positive number of seconds")
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

// defaultProgressEvery is how often a wait tells the client it is still
// waiting.
const defaultProgressEvery = 10 * time.Second

// wait blocks until a message for addr after the cutoff satisfies match, the
// timeout passes (WAIT_TIMEOUT with next_since) or the client goes away. It
// subscribes to the folder's watcher (one IMAP IDLE connection shared by
// every waiter), which also delivers what arrived between the cutoff and
// the subscription, so nothing in between is lost.
func (ib *inboxes) wait(ctx context.Context, req mcp.CallToolRequest, addr string, c cutoff, timeout time.Duration,
	match func(*imap.NewMail) (any, bool)) (any, error) {
	// Our own deadline: on SSE, mcp-go detaches the handler's context.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sub, err := ib.store.Subscribe(ctx, ib.opts.Folder, c.afterUID)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, waitTimeout(c, c.afterUID, timeout)
		}
		return nil, folderError(err, ib.opts.Folder)
	}
	defer func() { sub.Close() }()
	if sub.UIDValidity() != c.validity {
		return nil, folderError(imap.ErrUIDValidityChanged, ib.opts.Folder)
	}
	progress := newProgress(ctx, req, timeout, ib.opts.ProgressEvery)
	defer progress.stop()
	last := c.afterUID
	for {
		select {
		case m, ok := <-sub.C:
			if !ok {
				err := sub.Err()
				if errors.Is(err, imap.ErrOverflow) {
					// Fell behind the watcher (a long catch-up of a past
					// since, many waiters): start again after the last
					// message handled; the watcher catches up from there.
					var again *imap.Subscription
					if again, err = ib.resubscribe(ctx, last, c.validity); err == nil {
						sub = again
						continue
					}
				}
				switch {
				case err == nil || errors.Is(err, context.DeadlineExceeded):
					return nil, waitTimeout(c, last, timeout)
				case errors.Is(err, context.Canceled):
					return nil, err
				}
				return nil, folderError(err, ib.opts.Folder)
			}
			last = max(last, m.UID)
			ib.arrivals.add(time.Now(), m.UIDValidity, m.UID+1)
			if m.InternalDate.Before(c.notBefore) || !ib.isMailFor(&m, addr) {
				continue
			}
			if out, ok := match(&m); ok {
				return out, nil
			}
		case <-ib.opts.Stop:
			return nil, shuttingDown(c, last)
		case <-progress.tick():
			progress.send()
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, waitTimeout(c, last, timeout)
			}
			return nil, ctx.Err()
		}
	}
}

// resubscribe subscribes again after last, in the same UIDVALIDITY.
func (ib *inboxes) resubscribe(ctx context.Context, last, validity uint32) (*imap.Subscription, error) {
	sub, err := ib.store.Subscribe(ctx, ib.opts.Folder, last)
	if err != nil {
		return nil, err
	}
	if sub.UIDValidity() != validity {
		sub.Close()
		return nil, imap.ErrUIDValidityChanged
	}
	return sub, nil
}

// shuttingDown ends a wait when the server shuts down: WAIT_TIMEOUT, so
// that the client calls again (another replica, or this one restarted)
// with next_since and loses nothing.
func shuttingDown(c cutoff, last uint32) error {
	return &Error{Code: CodeWaitTimeout,
		Message: "the server is shutting down; call again with since=next_since to continue without missing anything",
		Details: map[string]any{"next_since": c.nextSince(last)}}
}

func waitTimeout(c cutoff, last uint32, timeout time.Duration) error {
	return &Error{Code: CodeWaitTimeout,
		Message: fmt.Sprintf("nothing matching arrived within %s; call again with since=next_since to continue without missing anything", timeout.Round(time.Second)),
		Details: map[string]any{"next_since": c.nextSince(last)}}
}

// progress sends notifications/progress at a steady pace when the client
// asked for them with a progress token.
type progress struct {
	ctx     context.Context
	token   mcp.ProgressToken
	srv     *server.MCPServer
	ticker  *time.Ticker
	start   time.Time
	timeout time.Duration
}

func newProgress(ctx context.Context, req mcp.CallToolRequest, timeout, every time.Duration) *progress {
	p := &progress{ctx: ctx, srv: server.ServerFromContext(ctx), start: time.Now(), timeout: timeout}
	if every <= 0 {
		every = defaultProgressEvery
	}
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil && p.srv != nil {
		p.token = req.Params.Meta.ProgressToken
		p.ticker = time.NewTicker(every)
	}
	return p
}

// tick is nil (never ready) without a progress token.
func (p *progress) tick() <-chan time.Time {
	if p.ticker == nil {
		return nil
	}
	return p.ticker.C
}

func (p *progress) send() {
	elapsed := time.Since(p.start)
	_ = p.srv.SendNotificationToClient(p.ctx, string(mcp.MethodNotificationProgress), map[string]any{
		"progressToken": p.token,
		"progress":      int(elapsed.Seconds()),
		"total":         int(p.timeout.Seconds()),
		"message":       fmt.Sprintf("waiting for email… %ds of %ds", int(elapsed.Seconds()), int(p.timeout.Seconds())),
	})
}

func (p *progress) stop() {
	if p.ticker != nil {
		p.ticker.Stop()
	}
}
