package imap

import "time"

// arrivalMark is what a watcher learnt at a moment: every message of the
// folder with a UID below next (in UIDVALIDITY validity) had arrived by at.
type arrivalMark struct {
	at             time.Time
	validity, next uint32
}

// maxMarks bounds a watcher's marks: the latest are kept.
const maxMarks = 256

// markLocked records that every UID below next has arrived by now. The
// caller holds watch.mu; marks are in time order, and one that tells
// nothing new is dropped (an earlier moment says more).
func (w *watcher) markLocked(validity, next uint32) {
	if n := len(w.marks); n > 0 && w.marks[n-1].validity == validity && w.marks[n-1].next >= next {
		return
	}
	if len(w.marks) >= maxMarks {
		w.marks = append(w.marks[:0], w.marks[len(w.marks)-maxMarks+1:]...)
	}
	w.marks = append(w.marks, arrivalMark{at: time.Now(), validity: validity, next: next})
}

// mark is markLocked for the watcher's goroutine.
func (w *watcher) mark(validity, next uint32) {
	ws := &w.c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w.markLocked(validity, next)
}

// ArrivedBy tells what the folder's watcher saw arrive by t: every message
// with a UID below next, in uidValidity, had arrived at or before t. It
// ties a time to the arrival order: IMAP's INTERNALDATE has whole seconds,
// a watcher's observations have the local clock's precision (as late as the
// server reports new mail: at once with IDLE on most servers, 0.5 s later
// on Dovecot). 0, 0: nothing known (no watcher, or none of its marks is as
// old as t).
func (c *Client) ArrivedBy(folder string, t time.Time) (uidValidity, next uint32) {
	ws := &c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.folders[canonicalFolder(folder)]
	if w == nil {
		return 0, 0
	}
	for _, m := range w.marks {
		if m.at.After(t) {
			break
		}
		uidValidity, next = m.validity, m.next
	}
	return uidValidity, next
}

// checkMark is what a watcher's NOOP showed: no message with a UID at or
// above next (in UIDVALIDITY validity) had arrived at sent, when the NOOP
// went out (the server read it after).
type checkMark struct {
	sent           time.Time
	validity, next uint32
}

// checkedLocked records that a NOOP sent at sent, answered with no
// EXISTS, found nothing after the last UID the watcher has looked at. The
// caller holds watch.mu; checks come in time order, and a later one with
// the same next replaces the earlier (it says more).
func (w *watcher) checkedLocked(sent time.Time) {
	if w.uidValidity == 0 {
		return
	}
	next := w.lastUID + 1
	if n := len(w.checks); n > 0 {
		switch last := &w.checks[n-1]; {
		case last.validity != w.uidValidity:
			w.checks = w.checks[:0]
		case last.next >= next:
			last.sent = sent
			return
		}
	}
	if len(w.checks) >= maxMarks {
		w.checks = append(w.checks[:0], w.checks[len(w.checks)-maxMarks+1:]...)
	}
	w.checks = append(w.checks, checkMark{sent: sent, validity: w.uidValidity, next: next})
}

// ArrivedAfter tells what the folder's watcher saw had not arrived by t:
// every message with a UID at or above next, in uidValidity, arrived after
// t. It is ArrivedBy's other side, learnt from the NOOPs the watcher sends
// every ActivePoll while someone waits (IDLE news comes late, it tells
// nothing). 0, 0: nothing known (no watcher, or no NOOP sent since t).
func (c *Client) ArrivedAfter(folder string, t time.Time) (uidValidity, next uint32) {
	ws := &c.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.folders[canonicalFolder(folder)]
	if w == nil {
		return 0, 0
	}
	for _, m := range w.checks { // by sent, next rising: the first says most
		if !m.sent.Before(t) {
			return m.validity, m.next
		}
	}
	return 0, 0
}
