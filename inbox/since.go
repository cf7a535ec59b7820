package inbox

import (
	"encoding/json"
	"github.com/email-mcp/email-mcp/message"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// Since is the since argument of the wait tools, in every form users write
// it: 0 (everything already in the inbox), unix seconds (a number or a
// numeric string), unix milliseconds where the value can only be that
// (Date.now(): 10^11 and up, which as seconds would be past the year
// 5000), RFC 3339 with or without a zone (none: UTC) or a date alone
// (that day, UTC), or a message id msg_<uidvalidity>_<uid> such as
// next_since or a result's id. The zero value is "not given".
type Since struct {
	kind     sinceKind
	validity uint32    // sinceID
	uid      uint32    // sinceID
	at       time.Time // sinceTime
	raw      string    // as given, for messages
}

type sinceKind int

const (
	sinceNone sinceKind = iota // omitted: mail arriving after the call
	sinceAll                   // 0: everything in the folder
	sinceID                    // after that message
	sinceTime                  // arrived at or after at
)

// maxSinceLen bounds the text of a since (any valid one is far shorter).
const maxSinceLen = 64

// sinceFuture is how far ahead of the server's clock a since time may be
// (a client's clock runs fast): beyond it the time is refused, not waited
// for.
const sinceFuture = 24 * time.Hour

// millisFrom is the smallest value read as milliseconds: below it a value
// is seconds (as milliseconds it would be before March 1973).
const millisFrom = 1e11

// UnmarshalJSON accepts a JSON number or string in one of Since's forms;
// anything else is an Invalid error that says what is accepted.
func (s *Since) UnmarshalJSON(b []byte) error {
	raw := strings.TrimSpace(string(b))
	if raw == "null" {
		*s = Since{}
		return nil
	}
	text := raw
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return sinceError(raw)
		}
		text = strings.TrimSpace(text)
		if text == "" {
			*s = Since{}
			return nil
		}
	}
	if len(text) > maxSinceLen {
		return sinceError(text)
	}
	v, err := parseSince(text, time.Now())
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// parseSince reads one since (not empty) with now as the server's clock.
func parseSince(text string, now time.Time) (Since, error) {
	if strings.HasPrefix(text, "msg_") {
		ref, ok := imap.ParseID(text) // uid 0 included: a next_since before any message
		if !ok {
			return Since{}, sinceError(text)
		}
		return Since{kind: sinceID, validity: ref.Validity, uid: ref.UID, raw: text}, nil
	}
	if n, err := strconv.ParseFloat(text, 64); err == nil && isDecimal(text) {
		return sinceNumber(n, text, now)
	}
	t, ok := parseSinceTime(strings.ToUpper(text))
	if !ok {
		return Since{}, sinceError(text)
	}
	return sinceAt(t, text, now)
}

// isDecimal refuses what ParseFloat takes beyond plain numbers: "Inf",
// "NaN", hexadecimal, underscores.
func isDecimal(s string) bool {
	return strings.Trim(s, "0123456789.eE+-") == "" && strings.ContainsAny(s, "0123456789")
}

// sinceNumber reads 0, unix seconds or unix milliseconds.
func sinceNumber(n float64, text string, now time.Time) (Since, error) {
	switch {
	case n == 0:
		return Since{kind: sinceAll, raw: text}, nil
	case n < 0 || math.IsNaN(n) || math.IsInf(n, 0):
		return Since{}, sinceArgError("since %s is negative: give 0 for everything, unix seconds, RFC 3339 or a message id", message.Truncate(text, 40))
	case n >= 1e15: // beyond any date as milliseconds (year 33658)
		return Since{}, sinceArgError("since %s is too large for unix seconds or milliseconds", message.Truncate(text, 40))
	case n >= millisFrom:
		sec, frac := math.Modf(n / 1000)
		return sinceAt(time.Unix(int64(sec), int64(frac*1e9)), text, now)
	}
	sec, frac := math.Modf(n)
	return sinceAt(time.Unix(int64(sec), int64(frac*1e9)), text, now)
}

// sinceAt checks a time: after 1970, and not far in the future (a value
// that IMAP's SEARCH cannot take, or that no mail will reach).
func sinceAt(t time.Time, text string, now time.Time) (Since, error) {
	if t.Before(time.Unix(0, 0)) {
		return Since{}, sinceArgError("since %q is before 1970: give 0 for everything already in the inbox", message.Truncate(text, 40))
	}
	if t.After(now.Add(sinceFuture)) {
		return Since{}, sinceArgError("since %q is in the future (%s; the server's clock says %s): give a past time, 0, or a message id",
			message.Truncate(text, 40), t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return Since{kind: sinceTime, at: t, raw: text}, nil
}

// sinceLayouts are the time forms since takes, upper-cased: RFC 3339 (the
// fraction is optional in parsing), without a zone (UTC), with a space
// instead of the T, and a date alone.
var sinceLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00", "2006-01-02T15:04", time.DateOnly,
}

func parseSinceTime(s string) (time.Time, bool) {
	for _, layout := range sinceLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// sinceArgError is an Invalid error about since.
func sinceArgError(format string, args ...any) error {
	return invalid(format, args...)
}

func sinceError(got string) error {
	return invalid("since must be 0 (everything), unix seconds or milliseconds, RFC 3339 (with or without zone), a date YYYY-MM-DD, or a message id msg_<uidvalidity>_<uid> (got %s)", message.Truncate(got, 60))
}

// arrivals remembers moments at which the folder's UIDNEXT was known: at
// time at, every message with a UID below next had arrived. It ties a
// since time to the arrival order: such messages are before the cutoff
// however the whole seconds of their INTERNALDATE compare. The zero value
// is ready; it keeps the latest maxArrivals.
type arrivals struct {
	mu   sync.Mutex
	list []arrival // by at
}

type arrival struct {
	at             time.Time
	validity, next uint32
}

const maxArrivals = 256

// add records that every UID below next had arrived at at.
func (a *arrivals) add(at time.Time, validity, next uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.list); n > 0 && !at.Before(a.list[n-1].at) && a.list[n-1].validity == validity && a.list[n-1].next >= next {
		return // later and nothing new: the earlier moment says more
	}
	i := sort.Search(len(a.list), func(i int) bool { return a.list[i].at.After(at) })
	a.list = append(a.list, arrival{})
	copy(a.list[i+1:], a.list[i:])
	a.list[i] = arrival{at: at, validity: validity, next: next}
	if len(a.list) > maxArrivals {
		a.list = append(a.list[:0], a.list[len(a.list)-maxArrivals:]...)
	}
}

// before returns the highest UIDNEXT known at or before t in validity: every
// UID below it arrived before t. 0: none known.
func (a *arrivals) before(t time.Time, validity uint32) uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var next uint32
	for _, r := range a.list {
		if r.at.After(t) {
			break
		}
		if r.validity == validity {
			next = max(next, r.next)
		}
	}
	return next
}

// oldestSince caches, per UIDVALIDITY and UTC day, the lowest UID that
// SEARCH SINCE that day found: waits with a time on that day start there.
// A cached UID stays a lower bound for good: later mail gets higher UIDs,
// and starting below an expunged message only costs a little catch-up.
// The zero value is ready.
type oldestSince struct {
	mu sync.Mutex
	m  map[oldestKey]uint32
}

type oldestKey struct {
	validity uint32
	day      string // YYYY-MM-DD, UTC
}

// maxOldest bounds oldestSince; past it the map starts over.
const maxOldest = 64

func (o *oldestSince) get(validity uint32, day time.Time) (uint32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	uid, ok := o.m[oldestKey{validity, day.UTC().Format(time.DateOnly)}]
	return uid, ok
}

func (o *oldestSince) put(validity uint32, day time.Time, uid uint32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil || len(o.m) >= maxOldest {
		o.m = map[oldestKey]uint32{}
	}
	o.m[oldestKey{validity, day.UTC().Format(time.DateOnly)}] = uid
}
