package inbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// Want is what a wait waits for.
type Want int

// The wants of Wait.
const (
	// AnyMail: the next message (that Accept takes), with its extracts.
	AnyMail Want = iota
	// Code: a message with a one-time code of at least MinConfidence.
	Code
	// Link: a message with an action link.
	Link
)

// Wait is one wait for a message to a test inbox.
type Wait struct {
	InboxID string
	Want    Want
	// Since is where the wait starts (the zero value: mail arriving
	// after the call).
	Since Since
	// Timeout is in seconds: nil is 60 s; WAIT_MAX_SECONDS caps it.
	Timeout *float64
	// MinConfidence: Code ignores codes found with less (nil: any code).
	MinConfidence *float64
	// Accept, when set, is the caller's test of a message from its header
	// alone (Found.Mail without extracts), before anything else is read
	// of it: wait_for_email's filters on the text it shows.
	Accept func(*Mail) bool
	// Progress, when set, is called every Options.ProgressEvery with the
	// wait's context, the time waited so far and the timeout.
	Progress func(ctx context.Context, elapsed, timeout time.Duration)
}

// Found is the message a wait found.
type Found struct {
	// Mail is the message; its OTP and Link are set for AnyMail only.
	Mail
	// Code is the best code (Code).
	Code extract.OTP
	// Links are the action links, best first, within message.MaxLinks and
	// message.MaxLinkBytes (Link).
	Links []string
}

// Wait blocks until a message to the inbox after the cutoff of w.Since is
// what w wants, the timeout passes (Timeout with next_since) or ctx ends
// (its error). It subscribes to the folder's watcher (one IMAP IDLE
// connection shared by every waiter), which also delivers what arrived
// between the cutoff and the subscription, so nothing in between is lost.
func (ib *Inboxes) Wait(ctx context.Context, w Wait) (*Found, error) {
	start := time.Now() // the cutoff of a wait without since
	in, err := ib.Resolve(ctx, w.InboxID)
	if err != nil {
		return nil, err
	}
	timeout, err := ib.clampTimeout(w.Timeout)
	if err != nil {
		return nil, err
	}
	c, err := ib.pinCutoff(ctx, w.Since, start)
	if err != nil {
		return nil, err
	}
	return ib.wait(ctx, in.Address, c, timeout, w)
}

// defaultProgressEvery is how often a wait reports progress.
const defaultProgressEvery = 10 * time.Second

func (ib *Inboxes) wait(ctx context.Context, addr string, c cutoff, timeout time.Duration, w Wait) (*Found, error) {
	// Our own deadline: a caller's context may not end (mcp-go's SSE).
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sub, err := ib.store.Subscribe(ctx, ib.opts.Folder, c.afterUID)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, waitTimeout(c, c.afterUID, timeout)
		}
		return nil, inFolder(err, ib.opts.Folder)
	}
	defer func() { sub.Close() }()
	if sub.UIDValidity() != c.validity {
		return nil, inFolder(imap.ErrUIDValidityChanged, ib.opts.Folder)
	}
	tick := newTicker(w.Progress, ib.opts.ProgressEvery)
	defer tick.stop()
	start, last := time.Now(), c.afterUID
	for {
		select {
		case m, ok := <-sub.C:
			if !ok {
				if sub, err = ib.afterClose(ctx, sub, last, c.validity); err != nil {
					return nil, ib.endError(err, c, last, timeout)
				}
				continue
			}
			last = max(last, m.UID)
			ib.arrivals.add(time.Now(), m.UIDValidity, m.UID+1)
			if !c.admits(m.UID, m.InternalDate) || !ib.isMailFor(&m, addr) {
				continue
			}
			if found, ok := match(&m, c.validity, w); ok {
				return found, nil
			}
		case <-ib.opts.Stop:
			return nil, shuttingDown(c, last)
		case <-tick.c():
			w.Progress(ctx, time.Since(start), timeout)
		case <-ctx.Done():
			return nil, ib.endError(ctx.Err(), c, last, timeout)
		}
	}
}

// afterClose handles the end of a subscription: one that fell behind the
// watcher (a long catch-up of a past since, many waiters) starts again
// after the last message handled, and the watcher catches up from there;
// any other end is its error (nil: the watcher stopped).
func (ib *Inboxes) afterClose(ctx context.Context, sub *imap.Subscription, last, validity uint32) (*imap.Subscription, error) {
	err := sub.Err()
	if !errors.Is(err, imap.ErrOverflow) {
		if err == nil {
			err = context.DeadlineExceeded
		}
		return sub, err
	}
	again, err := ib.resubscribe(ctx, last, validity)
	if err != nil {
		return sub, err
	}
	return again, nil
}

// endError is what a wait that ended on err answers.
func (ib *Inboxes) endError(err error, c cutoff, last uint32, timeout time.Duration) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return waitTimeout(c, last, timeout)
	case errors.Is(err, context.Canceled):
		return err
	}
	return inFolder(err, ib.opts.Folder)
}

// resubscribe subscribes again after last, in the same UIDVALIDITY.
func (ib *Inboxes) resubscribe(ctx context.Context, last, validity uint32) (*imap.Subscription, error) {
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

// match reports whether new mail is what w wants, reading each part of it
// at most once: the header for Accept, the body for the extractors.
func match(m *imap.NewMail, validity uint32, w Wait) (*Found, bool) {
	p := parsed{raw: m.Raw}
	found := &Found{Mail: p.mail(validity, m.UID, m.InternalDate, false)}
	if w.Accept != nil && !w.Accept(&found.Mail) {
		return nil, false
	}
	switch w.Want {
	case Code:
		otp, ok := extract.BestOTP(p.view())
		if !ok || (w.MinConfidence != nil && otp.Confidence < *w.MinConfidence) {
			return nil, false
		}
		found.Code = otp
	case Link:
		var urls []string
		for _, l := range extract.Links(p.view()) {
			urls = append(urls, l.URL)
		}
		if found.Links = boundLinks(urls); len(found.Links) == 0 { // bounds: SECURITY.md
			return nil, false
		}
	default:
		found.Mail = p.mail(validity, m.UID, m.InternalDate, true)
	}
	return found, true
}

// boundLinks keeps the first message.MaxLinks links that are within
// message.MaxLinkBytes.
func boundLinks(urls []string) []string {
	out := make([]string, 0, min(len(urls), message.MaxLinks))
	for _, u := range urls {
		if len(out) == message.MaxLinks {
			break
		}
		if len(u) <= message.MaxLinkBytes {
			out = append(out, u)
		}
	}
	return out
}

// shuttingDown ends a wait when the server shuts down: Timeout, so that
// the client calls again (another replica, or this one restarted) with
// next_since and loses nothing.
func shuttingDown(c cutoff, last uint32) error {
	return &Error{Kind: Timeout, NextSince: c.nextSince(last),
		Msg: "the server is shutting down; call again with since=next_since to continue without missing anything"}
}

func waitTimeout(c cutoff, last uint32, timeout time.Duration) error {
	return &Error{Kind: Timeout, NextSince: c.nextSince(last),
		Msg: fmt.Sprintf("nothing matching arrived within %s; call again with since=next_since to continue without missing anything", timeout.Round(time.Second))}
}

// ticker paces progress reports; without a Progress callback it never
// fires.
type ticker struct{ t *time.Ticker }

func newTicker(progress func(context.Context, time.Duration, time.Duration), every time.Duration) ticker {
	if progress == nil {
		return ticker{}
	}
	if every <= 0 {
		every = defaultProgressEvery
	}
	return ticker{time.NewTicker(every)}
}

// c is nil (never ready) without a ticker.
func (t ticker) c() <-chan time.Time {
	if t.t == nil {
		return nil
	}
	return t.t.C
}

func (t ticker) stop() {
	if t.t != nil {
		t.t.Stop()
	}
}
