package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// InboxStore is what the inbox toolset needs of the IMAP side.
type InboxStore interface {
	Mailbox
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	CreateFolder(ctx context.Context, name string) error
	FindSpecialUse(ctx context.Context, use string) (string, error)
	UIDNext(ctx context.Context, folder string) (uidValidity, uidNext uint32, err error)
	FetchMessages(ctx context.Context, folder string, uids []uint32, prefixBytes int64) ([]*imap.Message, error)
	MoveMany(ctx context.Context, from string, uids []uint32, to string) (int, error)
	CountMatches(ctx context.Context, folder string, crits []imap.SearchCriteria) ([]imap.MatchCount, error)
	Subscribe(ctx context.Context, folder string, afterUID uint32) (*imap.Subscription, error)
	ArrivedBy(folder string, t time.Time) (uidValidity, next uint32)
}

// InboxOptions configure the inbox toolset.
type InboxOptions struct {
	// Address is the base address: inboxes are its +tag sub-addresses
	// (local+tag@domain). With Sandbox, inboxes are tag@<its domain>
	// instead: the sandbox takes mail for any address, and some sign-up
	// forms refuse "+".
	Address string
	Sandbox bool
	// WaitMax bounds every wait's timeout (WAIT_MAX_SECONDS).
	WaitMax time.Duration
	// Folder is where mail arrives (INBOX).
	Folder string
	// ProgressEvery is how often a wait sends a progress notification when
	// the client asked for them (default 10 s).
	ProgressEvery time.Duration
	// Stop, once closed, ends every wait (running or started later) with a
	// retryable WAIT_TIMEOUT and its next_since: the server closes it when
	// it starts to shut down, so that waits end within the drain with a
	// since to go on from instead of being cut (CANCELLED). nil: never.
	Stop <-chan struct{}
}

// markerFolder holds one marker message per created inbox, so that the
// inboxes live in the mailbox: a restart or a second replica sees them.
const markerFolder = "email-mcp-inboxes"

// markerHeader names the inbox address in a marker message.
const markerHeader = "X-Email-Mcp-Inbox"

// inboxes resolves ids and addresses and finds an inbox's messages.
type inboxes struct {
	store InboxStore
	opts  InboxOptions
	// recipients remembers the recipient lines of new mail (isMailFor).
	recipients recipientCache
	// known remembers inboxes seen to exist (exists).
	known knownInboxes
	// arrivals ties since times to the arrival order (see pinCutoff).
	arrivals arrivals
	oldest   oldestSince
}

var tagPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,47}$`)

// newTag makes an inbox tag from an optional label: label-xxxxxx.
func newTag(label string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 32 {
			break
		}
	}
	prefix := strings.Trim(b.String(), "-")
	if prefix == "" {
		prefix = "inbox"
	}
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	return prefix + "-" + hex.EncodeToString(rnd)
}

// address is the inbox's address for a tag, in lower case: resolve and
// list compare lower-cased addresses with it, and an INBOX_ADDRESS with
// capitals (QA.Team@Example.test) made every created inbox unknown to them.
func (ib *inboxes) address(tag string) string {
	local, domain, _ := strings.Cut(strings.ToLower(ib.opts.Address), "@")
	if ib.opts.Sandbox {
		return tag + "@" + domain
	}
	if base, _, ok := strings.Cut(local, "+"); ok {
		local = base
	}
	return local + "+" + tag + "@" + domain
}

// resolve accepts an inbox id (its tag) or its full address and returns the
// tag and the address of an inbox that exists (its marker is in the
// mailbox). A malformed id is INVALID_ARGUMENT; a well-formed one that names
// no inbox is INBOX_NOT_FOUND: an unknown inbox must not look empty.
func (ib *inboxes) resolve(ctx context.Context, id string) (tag, addr string, err error) {
	if tag, addr, err = ib.parseID(id); err != nil {
		return "", "", err
	}
	ok, err := ib.exists(ctx, addr)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", inboxNotFound(tag)
	}
	return tag, addr, nil
}

// parseID checks the form of an inbox id (its tag) or address and returns
// the tag and the address, without asking the mailbox.
func (ib *inboxes) parseID(id string) (tag, addr string, err error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return "", "", invalidArg("inbox_id is required")
	}
	if strings.Contains(id, "@") {
		if tag := ib.tagOf(id); tagPattern.MatchString(tag) && ib.address(tag) == id {
			return tag, id, nil
		}
		return "", "", invalidArg("%q is not an address of this account's test inboxes", truncate(id, 80))
	}
	if !tagPattern.MatchString(id) {
		return "", "", invalidArg("inbox_id %q is not valid: use the inbox_id create_inbox returned", truncate(id, 80))
	}
	return id, ib.address(id), nil
}

// tagOf is the tag of an inbox address, or "".
func (ib *inboxes) tagOf(addr string) string {
	local, _, _ := strings.Cut(addr, "@")
	if ib.opts.Sandbox {
		return local
	}
	_, tag, _ := strings.Cut(local, "+")
	return tag
}

// recipientFields are the header fields that say who a message was for.
var recipientFields = []string{"To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To"}

// recipientsFor reports whether addr is one of the lower-cased recipient
// lines.
func recipientsFor(addr string, lines []string) bool {
	addr = strings.ToLower(addr)
	for _, v := range lines {
		if containsAddress(v, addr) {
			return true
		}
	}
	return false
}

// recipientLines parses raw's header and returns its recipient fields,
// lower-cased; none when the header does not parse.
func recipientLines(raw []byte) []string {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	var lines []string
	for _, f := range recipientFields {
		for _, v := range m.Header[f] {
			lines = append(lines, strings.ToLower(v))
		}
	}
	return lines
}

// isMailFor reports whether new mail from a watcher was addressed to addr,
// by its recipient header fields. One message is fanned out to every waiter
// on the folder; its header is parsed once for all of them (1,000 waiters
// used to parse it 1,000 times: most of the CPU and garbage of a busy wait).
func (ib *inboxes) isMailFor(m *imap.NewMail, addr string) bool {
	return recipientsFor(addr, ib.recipients.lines(m))
}

// mailKey names one message of the account for good: folder, UIDVALIDITY
// and UID.
type mailKey struct {
	folder   string
	validity uint32
	uid      uint32
}

// recipientCache is a bounded map of recipient lines by message; the zero
// value is ready.
type recipientCache struct {
	mu sync.Mutex
	m  map[mailKey][]string
}

// maxRemembered bounds recipientCache; past it the map starts over.
const maxRemembered = 4096

// lines returns m's recipient lines, parsing them on the first call.
func (c *recipientCache) lines(m *imap.NewMail) []string {
	k := mailKey{m.Folder, m.UIDValidity, m.UID}
	c.mu.Lock()
	l, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return l
	}
	l = recipientLines(m.Raw)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxRemembered {
		c.m = map[mailKey][]string{}
	}
	c.m[k] = l
	c.mu.Unlock()
	return l
}

// containsAddress finds addr in a header value as a whole address, not as
// the tail of a longer one (x+a@d must not match a@d... only bounded).
func containsAddress(v, addr string) bool {
	for i := 0; ; {
		j := strings.Index(v[i:], addr)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(addr)
		if (start == 0 || !isAddrChar(v[start-1])) && (end == len(v) || !isAddrChar(v[end])) {
			return true
		}
		i = start + 1
	}
}

func isAddrChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(".+-_=@%!#$&'*/?^`{|}~", c) >= 0
}

// extractView turns a fetched message into what the extractor reads.
func extractView(raw []byte) (extract.Message, message.Header) {
	hdr, _ := message.ParseHeader(raw)
	b, _ := message.ParseBodies(raw)
	var headers map[string][]string
	if m, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		headers = map[string][]string(m.Header)
	}
	return extract.Message{Subject: hdr.Subject, Text: b.Text, HTML: b.HTML, Headers: headers}, hdr
}
