// Package inbox is the test-inbox domain: inboxes made of sub-addresses of
// one account (or any address of the sandbox), recorded as marker messages
// in the folder email-mcp-inboxes so that every replica over the account
// agrees; their messages, summarised with the codes and links the
// extractor finds; and waits that block until a matching message arrives,
// pushed by the imap adapter's IDLE watcher, from a cutoff (Since) pinned
// once per call.
//
// It knows nothing of MCP: a tool handler binds its arguments, calls one
// operation of [Inboxes] and shapes the result. Failures are an [*Error]
// (with a [Kind] to map onto stable codes) or a [*FolderError] (an imap
// error met in a named folder); anything else comes from the adapter.
//
//	ib := inbox.New(client, inbox.Options{Address: "qa@example.test", Folder: "INBOX"})
//	in, _ := ib.Create(ctx, "signup")
//	found, err := ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code})
package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/email-mcp/email-mcp/message"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/hourly"
)

// Store is what the inbox domain needs of the mailbox (imap.Client is one).
type Store interface {
	Search(ctx context.Context, folder string, crit imap.SearchCriteria, page imap.PageRequest) (*imap.SearchResult, error)
	Append(ctx context.Context, folder string, flags []string, date time.Time, size int64, r io.Reader) (uint32, error)
	CreateFolder(ctx context.Context, name string) error
	FindSpecialUse(ctx context.Context, use string) (string, error)
	UIDNext(ctx context.Context, folder string) (uidValidity, uidNext uint32, err error)
	FetchMessages(ctx context.Context, folder string, uids []uint32, prefixBytes int64) ([]*imap.Message, error)
	MoveMany(ctx context.Context, from string, uids []uint32, to string) (int, error)
	CountMatches(ctx context.Context, folder string, crits []imap.SearchCriteria) ([]imap.MatchCount, error)
	Subscribe(ctx context.Context, folder string, afterUID uint32) (*imap.Subscription, error)
	ArrivedBy(folder string, t time.Time) (uidValidity, next uint32)
	ArrivedAfter(folder string, t time.Time) (uidValidity, next uint32)
}

var _ Store = (*imap.Client)(nil)

// Options configure the test inboxes.
type Options struct {
	// Address is the base address: inboxes are its +tag sub-addresses
	// (local+tag@domain). With Sandbox, inboxes are tag@<its domain>
	// instead: the sandbox takes mail for any address, and some sign-up
	// forms refuse "+".
	Address string
	Sandbox bool
	// WaitMax bounds every wait's timeout (WAIT_MAX_SECONDS).
	WaitMax time.Duration
	// Folder is where mail arrives ("": INBOX).
	Folder string
	// ProgressEvery is how often a wait reports progress when its caller
	// asked for it (Wait.Progress; default 10 s).
	ProgressEvery time.Duration
	// Stop, once closed, ends every wait (running or started later) with a
	// Timeout error and its next_since: the server closes it when it
	// starts to shut down, so that waits end within the drain with a since
	// to go on from instead of being cut. nil: never.
	Stop <-chan struct{}
}

// MarkerFolder holds one marker message per created inbox, so that the
// inboxes live in the mailbox: a restart or a second replica sees them.
const MarkerFolder = "email-mcp-inboxes"

// markerHeader names the inbox address in a marker message.
const markerHeader = "X-Email-Mcp-Inbox"

// Inboxes resolves ids and addresses, finds an inbox's messages and waits
// for new ones. Make one with New; it is safe for concurrent use.
type Inboxes struct {
	store Store
	opts  Options
	// recipients remembers the recipient lines of new mail (isMailFor).
	recipients recipientCache
	// known remembers inboxes seen to exist (exists).
	known knownInboxes
	// arrivals ties since times to the arrival order (see pinCutoff).
	arrivals arrivals
	// unseen tells what arrived after a call started (see fromStart).
	unseen unseen
	oldest oldestSince
	// codes counts send_test_code's samples.
	codes hourly.Limit
}

// New returns the test inboxes over store.
func New(store Store, opts Options) *Inboxes {
	if opts.Folder == "" {
		opts.Folder = "INBOX"
	}
	return &Inboxes{store: store, opts: opts}
}

// Folder is the folder where the inboxes' mail arrives.
func (ib *Inboxes) Folder() string { return ib.opts.Folder }

// Inbox is a test inbox: its id (the tag) and its address.
type Inbox struct {
	ID      string
	Address string
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
func (ib *Inboxes) address(tag string) string {
	local, domain, _ := strings.Cut(strings.ToLower(ib.opts.Address), "@")
	if ib.opts.Sandbox {
		return tag + "@" + domain
	}
	if base, _, ok := strings.Cut(local, "+"); ok {
		local = base
	}
	return local + "+" + tag + "@" + domain
}

// Resolve accepts an inbox id (its tag) or its full address and returns
// an inbox that exists (its marker is in the mailbox). A malformed id is
// Invalid; a well-formed one that names no inbox is NotFound: an unknown
// inbox must not look empty.
func (ib *Inboxes) Resolve(ctx context.Context, id string) (Inbox, error) {
	in, err := ib.parseID(id)
	if err != nil {
		return Inbox{}, err
	}
	ok, err := ib.exists(ctx, in.Address)
	if err != nil {
		return Inbox{}, err
	}
	if !ok {
		return Inbox{}, notFound(in.ID)
	}
	return in, nil
}

// parseID checks the form of an inbox id (its tag) or address and returns
// the inbox it names, without asking the mailbox.
func (ib *Inboxes) parseID(id string) (Inbox, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Inbox{}, invalid("inbox_id is required")
	}
	if strings.Contains(id, "@") {
		if tag := ib.tagOf(id); tagPattern.MatchString(tag) && ib.address(tag) == id {
			return Inbox{tag, id}, nil
		}
		return Inbox{}, invalid("%q is not an address of this account's test inboxes", message.Truncate(id, 80))
	}
	if !tagPattern.MatchString(id) {
		return Inbox{}, invalid("inbox_id %q is not valid: use the inbox_id create_inbox returned", message.Truncate(id, 80))
	}
	return Inbox{id, ib.address(id)}, nil
}

// tagOf is the tag of an inbox address, or "".
func (ib *Inboxes) tagOf(addr string) string {
	local, _, _ := strings.Cut(addr, "@")
	if ib.opts.Sandbox {
		return local
	}
	_, tag, _ := strings.Cut(local, "+")
	return tag
}
