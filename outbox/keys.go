package outbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/smtp"
)

// Idempotency keys of the sending tools.
//
// A call with an idempotency_key APPENDs a claim to keyFolder, then reads
// the key's records (found by a header with the key's SHA-256, never the
// key itself). A result record there answers the call with that first
// result and replayed: true (the claim is removed); nothing is sent. Of the
// claims of one key the one with the lowest UID owns the key (the same
// answer for every replica), and the others remove theirs and wait for the
// owner's result, for up to defaultOwnerWait, then answer RATE_LIMITED with
// in_progress (retryable). The owner sends; a success stores its result, a
// send that may have been delivered (maybe_delivered) stores that error,
// and any other failure (nothing was sent) removes the claim so that a
// retry sends. Keys are per account (the mailbox) and kept for keyTTL.
const (
	keyFolder  = "email-mcp-send-keys"
	keyHeader  = "X-Email-Mcp-Send-Key"
	toolHeader = "X-Email-Mcp-Tool"
	// keyTTL is how long a key is kept: "at least 24 hours", documented.
	keyTTL = 25 * time.Hour
	// claimStale is the age after which a claim with no result is taken
	// for a send whose replica stopped before recording it.
	claimStale = 15 * time.Minute
	// defaultOwnerWait bounds how long a repeat waits for the first send.
	defaultOwnerWait = 10 * time.Second
	// MaxKeyLen bounds idempotency_key, in characters.
	MaxKeyLen = 200
)

// Describe is how a tool reports err: its code, message and details. A
// key's send that may have been delivered stores that report, and a repeat
// answers it again.
type Describe func(err error) (code, message string, details map[string]any)

// keyHash names a key in the records.
func keyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// checkKey refuses a key that is too long or not one line of text.
func checkKey(key string) error {
	if utf8.RuneCountInString(key) > MaxKeyLen || !utf8.ValidString(key) || containsControl(key) {
		return invalid("idempotency_key must be one line of text of at most %d characters", MaxKeyLen)
	}
	return nil
}

// Once runs a sending tool's call at most once per idempotency key: see
// the comment on keyFolder. An empty key runs it.
func (o *Outbox) Once(ctx context.Context, tool, key string, run func(context.Context) (any, error)) (any, error) {
	return o.sends.once(ctx, tool, key, run)
}

func (l *sendLog) once(ctx context.Context, tool, key string, run func(context.Context) (any, error)) (any, error) {
	if key == "" {
		return run(ctx)
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if l.store == nil {
		return nil, invalid("idempotency_key needs the IMAP mailbox to keep its keys in, and this server has none")
	}
	l.keys.prune(ctx, l)
	hash := keyHash(key)
	claim, replay, err := l.claim(ctx, tool, hash)
	if err != nil || replay != nil {
		return replay, err
	}
	out, err := run(ctx)
	switch {
	case err == nil:
		l.storeResult(ctx, tool, hash, storedResult{Result: out})
	case errors.Is(err, smtp.ErrMaybeDelivered):
		code, msg, details := l.describe(err)
		l.storeResult(ctx, tool, hash, storedResult{Error: &storedError{Code: code, Message: msg, Details: details}})
	default:
		l.remove(ctx, keyFolder, claim)
	}
	return out, err
}

// storedResult is the body of a result record.
type storedResult struct {
	Result any          `json:"result,omitempty"`
	Error  *storedError `json:"error,omitempty"`
}

type storedError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// claim returns the UID of our claim when we own the key, or the first
// result to replay (a value or the replayed error).
func (l *sendLog) claim(ctx context.Context, tool, hash string) (uint32, any, error) {
	wait := l.ownerWait
	if wait <= 0 {
		wait = defaultOwnerWait
	}
	deadline := time.Now().Add(wait)
	// Claim first, look after: a first send (the usual case) needs one
	// search; a repeat removes its claim again.
	mine, err := l.claimKey(ctx, tool, hash)
	if err != nil {
		return 0, nil, recordError(err, keyFolder)
	}
	for pause := 50 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		claims, result, err := l.keyRecords(ctx, hash)
		if err != nil {
			l.remove(ctx, keyFolder, mine)
			return 0, nil, recordError(err, keyFolder)
		}
		if result != nil {
			l.remove(ctx, keyFolder, mine)
			out, err := replayOf(tool, *result)
			return 0, out, err
		}
		if mine == 0 && len(claims) == 0 {
			if mine, err = l.claimKey(ctx, tool, hash); err != nil {
				return 0, nil, recordError(err, keyFolder)
			}
			continue
		}
		if mine != 0 && len(claims) > 0 && claims[0].UID == mine {
			return mine, nil, nil
		}
		l.remove(ctx, keyFolder, mine) // another claim came first: it owns the key
		mine = 0
		if err := waitForOwner(ctx, claims, deadline, pause); err != nil {
			return 0, nil, err
		}
	}
}

// claimKey appends a claim of the key hash for tool and returns its UID.
func (l *sendLog) claimKey(ctx context.Context, tool, hash string) (uint32, error) {
	return l.appendRecord(ctx, keyFolder, kindClaim, []string{keyHeader + ": " + hash, toolHeader + ": " + tool}, nil)
}

// waitForOwner pauses while another claim owns the key, and answers why a
// repeat stops waiting: the owner's claim is stale (its replica stopped),
// the wait is over (in progress), or the call ended.
func waitForOwner(ctx context.Context, claims []parsedRecord, deadline time.Time, pause time.Duration) error {
	if len(claims) > 0 && time.Since(claims[0].Date) > claimStale {
		return staleClaim(claims[0].Date)
	}
	if time.Now().After(deadline) {
		return &Error{Kind: KindRateLimited,
			Message: "a send with this idempotency_key is still in progress (on this or another replica); call again shortly to get its result",
			Details: map[string]any{"retry_after_seconds": 2, "in_progress": true}}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(pause):
		return nil
	}
}

// keyRecords returns the claims of a key, by UID, and its first result.
func (l *sendLog) keyRecords(ctx context.Context, hash string) (claims []parsedRecord, result *parsedRecord, err error) {
	recs, err := l.store.Records(ctx, keyFolder, imap.RecordQuery{Header: keyHeader, Value: hash, Raw: true})
	if errors.Is(err, imap.ErrFolderNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		p, ok := parseRecord(r)
		if !ok || p.header.Get(keyHeader) != hash {
			continue
		}
		switch {
		case p.kind == kindClaim:
			claims = append(claims, p)
		case p.kind == kindResult && result == nil:
			result = &p
		}
	}
	return claims, result, nil
}

// replayOf answers a repeat with the first result of its key.
func replayOf(tool string, r parsedRecord) (any, error) {
	if used := r.header.Get(toolHeader); used != tool {
		return nil, invalid("this idempotency_key was used by %s; choose another key for this %s", message.Truncate(used, 40), tool)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(r.body)), ""))
	var stored struct {
		Result map[string]any `json:"result"`
		Error  *storedError   `json:"error"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &stored)
	}
	switch {
	case err != nil:
		return nil, &Error{Kind: KindInternal, Message: "the first result of this idempotency_key cannot be read", Cause: err}
	case stored.Error != nil:
		details := stored.Error.Details
		if details == nil {
			details = map[string]any{}
		}
		details["replayed"] = true
		return nil, &Error{Kind: KindReplayed, Code: stored.Error.Code, Message: stored.Error.Message + " (the first send with this idempotency_key)", Details: details}
	case stored.Result == nil:
		return nil, &Error{Kind: KindInternal, Message: "the first result of this idempotency_key is empty"}
	}
	stored.Result["replayed"] = true
	return stored.Result, nil
}

// staleClaim answers a key whose send began long ago and recorded no
// result: its replica stopped during the send, which may have delivered.
func staleClaim(at time.Time) error {
	return &Error{Kind: KindConnectionFailed,
		Message: fmt.Sprintf("a send with this idempotency_key began at %s and recorded no result (its server stopped?): "+
			"it may have been delivered; check (with the recipient, or in Sent) before sending again with a new key", at.Format(time.RFC3339)),
		Details: map[string]any{"retryable": false, "maybe_delivered": true}}
}

// storeResult appends the result record of a key, after the call's
// context too. A failure is logged: repeats then wait, and after
// claimStale answer maybe_delivered.
func (l *sendLog) storeResult(ctx context.Context, tool, hash string, res storedResult) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	raw, err := json.Marshal(res)
	if err == nil {
		var body bytes.Buffer
		enc := base64.StdEncoding.EncodeToString(raw)
		for len(enc) > 76 {
			body.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		body.WriteString(enc + "\r\n")
		_, err = l.appendRecord(ctx, keyFolder, kindResult, []string{keyHeader + ": " + hash, toolHeader + ": " + tool, "Content-Transfer-Encoding: base64"}, body.Bytes())
	}
	if err != nil {
		l.log.Warn("idempotency_key: the send's result was not recorded", "tool", tool, "err", err)
	}
}

// keyPruner removes key records older than keyTTL, at most once an hour
// per process.
type keyPruner struct {
	mu   sync.Mutex
	last time.Time
}

func (p *keyPruner) prune(ctx context.Context, l *sendLog) {
	p.mu.Lock()
	if time.Since(p.last) < time.Hour {
		p.mu.Unlock()
		return
	}
	p.last = time.Now()
	p.mu.Unlock()
	recs, err := l.store.Records(ctx, keyFolder, imap.RecordQuery{})
	if err != nil {
		if !errors.Is(err, imap.ErrFolderNotFound) {
			l.log.Warn("idempotency keys: old records not listed", "err", err)
		}
		return
	}
	var old []uint32
	for _, r := range recs {
		if time.Since(r.Date) > keyTTL {
			old = append(old, r.UID)
		}
	}
	l.remove(ctx, keyFolder, old...)
}
