package outbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// SendLogStore is what the send records need of the IMAP side
// (imap.Client): the hourly cap and the idempotency keys live in the
// mailbox, so every replica over the account sees the same ones.
type SendLogStore interface {
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	CreateFolder(ctx context.Context, name string) error
	Records(ctx context.Context, folder string, q imap.RecordQuery) ([]imap.Record, error)
	Remove(ctx context.Context, folder string, uids []uint32) error
}

var _ SendLogStore = (*imap.Client)(nil)

// The folder of the cap's records and its header.
//
// SEND_MAX_PER_HOUR is counted in the mailbox: before a send goes to SMTP,
// it APPENDs a small record to capFolder (a reservation). IMAP gives each
// a greater UID than any before it and every session that looks after the
// APPEND sees all the lower ones, so "the records of the last hour with a
// lower UID than mine" is the same set for every replica: with cap or more
// of them ahead, the reservation is removed and the send refused
// (RATE_LIMITED). The hour is the server's: each record's INTERNALDATE
// against the new record's own. A send that certainly delivered nothing
// removes its record; records older than an hour are removed by the next
// reservation (UID EXPUNGE of those UIDs alone), so the folder holds about
// cap records.
const (
	capFolder    = "email-mcp-sends"
	recordHeader = "X-Email-Mcp-Send" // "<kind> <nonce>"
)

// Record kinds.
const (
	kindCount  = "count"  // a reservation of the hourly cap
	kindClaim  = "claim"  // an idempotency key taken by a send in progress
	kindResult = "result" // the first result of a key's send
)

// sendLog keeps the send records in the mailbox.
type sendLog struct {
	store    SendLogStore
	perHour  int
	local    *policy // the process's own count: a fast refusal, never an admission
	log      *slog.Logger
	describe Describe
	keys     keyPruner
	// ownerWait bounds how long a repeat waits for its key's first send
	// (0: defaultOwnerWait).
	ownerWait time.Duration
}

// recordTimeout bounds the bookkeeping that must finish after the call's
// own context ended (removing a reservation, storing a result).
const recordTimeout = time.Minute

// appendRecord stores a record of kind in folder with the extra header
// lines and body, creating the folder the first time, and returns its UID.
// The INTERNALDATE is the server's clock. Without UIDPLUS (no APPENDUID)
// the record is found again by its nonce.
func (l *sendLog) appendRecord(ctx context.Context, folder, kind string, extra []string, body []byte) (uint32, error) {
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	id := hex.EncodeToString(nonce)
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: email-mcp <send-records@email-mcp.invalid>\r\nSubject: email-mcp send record (%s)\r\n", kind)
	fmt.Fprintf(&b, "Date: %s\r\nMessage-ID: <%s@email-mcp.invalid>\r\n%s: %s %s\r\n", time.Now().UTC().Format(time.RFC1123Z), id, recordHeader, kind, id)
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	if len(body) == 0 {
		body = []byte("Kept by email-mcp for SEND_MAX_PER_HOUR and idempotency_key; removed when it expires.\r\n")
	}
	b.Write(body)
	raw := b.Bytes()
	add := func() (uint32, error) {
		return l.store.Append(ctx, folder, []string{`\Seen`}, time.Time{}, int64(len(raw)), bytes.NewReader(raw))
	}
	uid, err := add()
	if errors.Is(err, imap.ErrFolderNotFound) {
		if err = l.store.CreateFolder(ctx, folder); err == nil {
			uid, err = add()
		}
	}
	if err != nil || uid != 0 {
		return uid, err
	}
	recs, err := l.store.Records(ctx, folder, imap.RecordQuery{Header: recordHeader, Value: id})
	if err != nil {
		return 0, err
	}
	if len(recs) != 1 {
		return 0, fmt.Errorf("send record %s: found %d times after APPEND", id, len(recs))
	}
	return recs[0].UID, nil
}

// remove deletes records, after the call's context too; a failure is
// logged (a reservation left behind counts for its hour).
func (l *sendLog) remove(ctx context.Context, folder string, uids ...uint32) {
	uids = slices.DeleteFunc(uids, func(u uint32) bool { return u == 0 })
	if len(uids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	for len(uids) > 0 {
		n := min(len(uids), maxRemove)
		if err := l.store.Remove(ctx, folder, uids[:n]); err != nil {
			l.log.Warn("send records not removed", "folder", folder, "records", len(uids), "err", err)
			return
		}
		uids = uids[n:]
	}
}

// maxRemove is how many records one Remove takes (one command line).
const maxRemove = 500

// reserve takes one send from the hourly cap of the account. release gives
// it back when the send certainly delivered nothing. Over the cap the error
// is RATE_LIMITED with retry_after_seconds; when the records cannot be
// read, nothing is sent either.
func (l *sendLog) reserve(ctx context.Context) (release func(), err error) {
	forget, err := l.local.reserve(time.Now()) // this process alone is at the cap already
	if err != nil || l.perHour <= 0 || l.store == nil {
		return forget, err // no cap, or no mailbox to count in: the process's count alone
	}
	uid, err := l.appendRecord(ctx, capFolder, kindCount, nil, nil)
	if err != nil {
		forget()
		return nil, recordError(err, capFolder)
	}
	wait, err := l.rank(ctx, uid)
	if err != nil || wait > 0 {
		l.remove(ctx, capFolder, uid)
		forget()
		if err != nil {
			return nil, recordError(err, capFolder)
		}
		return nil, capError(wait, l.perHour)
	}
	return func() { l.remove(ctx, capFolder, uid); forget() }, nil
}

// rank reads the cap's records and returns 0 when fewer than perHour
// records of the hour before ours have lower UIDs, else how long until
// enough of them are an hour old. It removes the records older than an
// hour.
func (l *sendLog) rank(ctx context.Context, mine uint32) (time.Duration, error) {
	recs, err := l.store.Records(ctx, capFolder, imap.RecordQuery{})
	if err != nil {
		return 0, err
	}
	var at time.Time
	for _, r := range recs {
		if r.UID == mine {
			at = r.Date
		}
	}
	if at.IsZero() {
		return 0, fmt.Errorf("send record %d not found after APPEND", mine)
	}
	var ahead []time.Time
	var old []uint32
	for _, r := range recs {
		switch {
		case !r.Date.After(at.Add(-time.Hour)):
			old = append(old, r.UID)
		case r.UID < mine:
			ahead = append(ahead, r.Date)
		}
	}
	l.remove(ctx, capFolder, old...)
	if len(ahead) < l.perHour {
		return 0, nil
	}
	// Room comes back when len(ahead)-perHour+1 of them are an hour old.
	dates := sortedTimes(ahead)
	return max(time.Second, dates[len(ahead)-l.perHour].Add(time.Hour).Sub(at)), nil
}

// capError is the RATE_LIMITED refusal of SEND_MAX_PER_HOUR.
func capError(wait time.Duration, perHour int) error {
	return &Error{Kind: KindRateLimited,
		Message: "the send cap of this account is reached (SEND_MAX_PER_HOUR, counted over every replica); nothing was sent",
		Details: map[string]any{"retry_after_seconds": int(math.Ceil(wait.Seconds())), "max_per_hour": perHour}}
}

// recordError is a failure to read or write the send records: nothing was
// sent, since the cap or the key could not be checked.
func recordError(err error, folder string) error {
	var oe *Error
	if errors.As(err, &oe) {
		return err
	}
	return &Error{Kind: KindRecords, Cause: err,
		Message: "the send records in the mailbox (folder " + folder + ") could not be checked; nothing was sent"}
}

// sortedTimes returns ts sorted, oldest first.
func sortedTimes(ts []time.Time) []time.Time {
	out := slices.Clone(ts)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// parsedRecord is a record's kind and header fields, and its body.
type parsedRecord struct {
	imap.Record
	kind   string
	header mail.Header
	body   []byte
}

// parseRecord reads a record fetched with its bytes; ok is false for a
// message that is not one of ours.
func parseRecord(r imap.Record) (parsedRecord, bool) {
	m, err := mail.ReadMessage(bytes.NewReader(r.Raw))
	if err != nil {
		return parsedRecord{}, false
	}
	kind, _, _ := strings.Cut(m.Header.Get(recordHeader), " ")
	body, _ := io.ReadAll(m.Body)
	return parsedRecord{Record: r, kind: kind, header: m.Header, body: body}, kind != ""
}

// IsRecordFolder reports whether folder holds send records: its messages
// must not be taken out, or an agent that moved the records away would
// undo the cap and forget its keys. (Adding messages there only lowers the
// cap.)
func IsRecordFolder(folder string) bool {
	return strings.EqualFold(folder, capFolder) || strings.EqualFold(folder, keyFolder)
}
