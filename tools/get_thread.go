package tools

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// ThreadMessage is one message of get_thread's result.
type ThreadMessage struct {
	Folder    string `json:"folder"`
	UID       uint32 `json:"uid"`
	ID        string `json:"id" jsonschema:"msg_<uidvalidity>_<uid>: read_email, reply_email and forward_email take it as uid (with this folder)"`
	MessageID string `json:"message_id" jsonschema:"Message-ID header without angle brackets"`
	From      string `json:"from" jsonschema:"sender as Name <address>"`
	Date      string `json:"date" jsonschema:"RFC 3339: the Date header, else the arrival time"`
	Subject   string `json:"subject" jsonschema:"subject (untrusted text)"`
	Preview   string `json:"preview" jsonschema:"the start of the text, quoted lines left out, at most 200 characters (untrusted text)"`
	// Bounds (SECURITY.md), as in search_emails.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early"`
}

// ThreadResult is get_thread's result.
type ThreadResult struct {
	Total    int             `json:"total" jsonschema:"messages found in the conversation (one per Message-ID)"`
	Messages []ThreadMessage `json:"messages" jsonschema:"oldest first; over limit, the newest limit of them"`
	HasMore  bool            `json:"has_more" jsonschema:"true when older messages were left out (over limit)"`
	Omitted  int             `json:"omitted" jsonschema:"how many older messages were left out"`
	// Incomplete: the search stopped at its bounds (rounds, ids, messages).
	Incomplete bool     `json:"incomplete" jsonschema:"true when the conversation is larger than get_thread follows (1000 messages, 500 message ids, 10 rounds): more may exist"`
	Folders    []string `json:"folders" jsonschema:"the folders searched"`
}

type threadArgs struct {
	UID    *UID   `json:"uid"`
	Folder string `json:"folder"`
	Limit  *int   `json:"limit"`
}

// threadStore is what get_thread needs of the IMAP side beyond Mailbox
// (imap.Client has it).
type threadStore interface {
	SearchThread(ctx context.Context, folder string, ids []string) ([]uint32, error)
	FetchMessages(ctx context.Context, folder string, uids []uint32, prefixBytes int64) ([]*imap.Message, error)
}

var _ threadStore = (*imap.Client)(nil)

// Bounds of a thread search.
const (
	defaultThreadLimit = 50
	maxThreadLimit     = 200
	maxThreadRounds    = 10
	maxThreadIDs       = 500
	maxThreadMessages  = 1000
	// threadPrefix is how much of each message is fetched: its header and
	// the start of its text for the preview.
	threadPrefix = 16 << 10
	// threadFetch is the number of messages fetched at once.
	threadFetch  = 200
	previewChars = 200
)

func getThreadSpec(mail Mailbox) *spec {
	return &spec{
		name:  "get_thread",
		title: "Get a conversation",
		description: "The whole conversation of a message, oldest first: every message linked to it by Message-ID, In-Reply-To or References, " +
			"found in its folder, INBOX, Sent and Archive (what exists), with folder, uid, from, date, subject and a short preview. " +
			"Read one in full with read_email (its folder and id)." + untrustedNote,
		toolset:  ToolsetMail,
		readOnly: true, destructive: false, idempotent: true, openWorld: true,
		params: []mcp.ToolOption{
			mcp.WithAny("uid", mcp.Required(), uidSchema(), mcp.Description("a message of the conversation: UID or id")),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithInteger("limit", mcp.DefaultNumber(defaultThreadLimit), mcp.Min(1), mcp.Max(maxThreadLimit), mcp.Description("most messages returned (the newest)")),
		},
		output: mcp.WithOutputSchema[ThreadResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args threadArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			return getThread(ctx, mail, args)
		},
	}
}

// threadHit is a message found for the thread.
type threadHit struct {
	folder string
	rank   int // the folder's place in the search order
	msg    *imap.Message
	hdr    message.Header
}

func getThread(ctx context.Context, mail Mailbox, a threadArgs) (*ThreadResult, error) {
	folder, err := checkFolder(a.Folder, "folder")
	if err != nil {
		return nil, err
	}
	limit := defaultThreadLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if a.UID == nil || limit < 1 || limit > maxThreadLimit {
		return nil, invalidArg("uid is required and limit must be 1 to %d", maxThreadLimit)
	}
	ts, ok := mail.(threadStore)
	if !ok {
		return nil, errorf(CodeInternal, "this mailbox cannot search conversations")
	}
	orig, err := mail.FetchMessage(ctx, folder, a.UID.UID, threadPrefix)
	if err != nil {
		return nil, messageError(err, folder, a.UID.UID)
	}
	if err := checkValidity(*a.UID, orig.UIDValidity, folder); err != nil {
		return nil, err
	}
	folders, err := threadFolders(ctx, mail, folder)
	if err != nil {
		return nil, err
	}
	w := &threadWalk{ts: ts, folders: folders, seen: map[hitKey]bool{}, known: map[string]bool{}}
	w.add(threadHit{folder: folder, msg: orig, hdr: parseHeader(orig)})
	if err := w.run(ctx); err != nil {
		return nil, err
	}
	return threadResult(ctx, mail, w, limit), nil
}

// threadFolders is the search order: the given folder, INBOX, then the
// \Sent, \Archive and \All folders that exist, each once.
func threadFolders(ctx context.Context, mail Mailbox, folder string) ([]string, error) {
	list, err := mail.ListFolders(ctx, false)
	if err != nil {
		return nil, err
	}
	out := []string{folder}
	addName := func(name string) {
		if !slices.ContainsFunc(out, func(f string) bool { return sameFolder(f, name) }) {
			out = append(out, name)
		}
	}
	addName("INBOX")
	for _, use := range []string{`\Sent`, `\Archive`, `\All`} {
		for _, f := range list {
			if strings.EqualFold(f.SpecialUse, use) {
				addName(f.Name)
			}
		}
	}
	if !slices.ContainsFunc(list, func(f imap.Folder) bool { return strings.EqualFold(f.SpecialUse, `\Sent`) }) {
		for _, f := range list { // no \Sent attribute: a usual name (as sentFolder)
			if strings.EqualFold(f.Name, "Sent") || strings.EqualFold(f.Name, "Sent Items") || strings.EqualFold(f.Name, "INBOX.Sent") {
				addName(f.Name)
			}
		}
	}
	return out, nil
}

func parseHeader(m *imap.Message) message.Header {
	h, _ := message.ParseHeader(m.Raw)
	return h
}

// threadWalk follows a conversation to a fixed point: each round searches
// every folder for the ids learnt in the round before, and the messages
// found bring their own ids, until no new id comes or a bound is reached.
type threadWalk struct {
	ts         threadStore
	folders    []string
	hits       []threadHit
	seen       map[hitKey]bool
	known      map[string]bool // message ids already asked for
	pending    []string
	incomplete bool
}

// hitKey names a message: its folder and UID.
type hitKey struct {
	folder string
	uid    uint32
}

func (w *threadWalk) add(h threadHit) {
	w.seen[hitKey{h.folder, h.msg.UID}] = true
	w.hits = append(w.hits, h)
	ids := append([]string{h.hdr.MessageID}, h.hdr.InReplyTo...)
	for _, id := range append(ids, h.hdr.References...) {
		id = strings.Trim(strings.TrimSpace(id), "<>")
		switch {
		case id == "" || w.known[id]:
		case len(w.known) >= maxThreadIDs:
			w.incomplete = true
		default:
			w.known[id] = true
			w.pending = append(w.pending, id)
		}
	}
}

func (w *threadWalk) run(ctx context.Context) error {
	for round := 0; len(w.pending) > 0; round++ {
		if round == maxThreadRounds {
			w.incomplete = true
			return nil
		}
		batch := w.pending
		w.pending = nil
		for rank, f := range w.folders {
			if err := w.searchFolder(ctx, rank, f, batch); err != nil {
				return err
			}
		}
	}
	return nil
}

// searchFolder finds the messages of folder that name one of ids and adds
// those not seen yet. A folder that does not exist (other than the one
// asked for, which was read already) is skipped.
func (w *threadWalk) searchFolder(ctx context.Context, rank int, folder string, ids []string) error {
	for chunk := range slices.Chunk(ids, imap.MaxThreadIDs) {
		uids, err := w.ts.SearchThread(ctx, folder, chunk)
		if errors.Is(err, imap.ErrFolderNotFound) && rank > 0 {
			return nil
		}
		if err != nil {
			return folderError(err, folder)
		}
		uids = slices.DeleteFunc(uids, func(u uint32) bool { return w.seen[hitKey{folder, u}] })
		if room := maxThreadMessages - len(w.hits); len(uids) > room {
			uids, w.incomplete = uids[:max(room, 0)], true
		}
		for part := range slices.Chunk(uids, threadFetch) {
			msgs, err := w.ts.FetchMessages(ctx, folder, part, threadPrefix)
			if err != nil {
				return folderError(err, folder)
			}
			for _, m := range msgs {
				w.add(threadHit{folder: folder, rank: rank, msg: m, hdr: parseHeader(m)})
			}
		}
	}
	return nil
}

// threadResult keeps one message per Message-ID (the copy in the earliest
// folder of the search order), sorts them oldest first, and keeps the
// newest limit, with their previews.
func threadResult(ctx context.Context, mail Mailbox, w *threadWalk, limit int) *ThreadResult {
	byID := map[string]int{}
	var list []threadHit
	for _, h := range w.hits {
		id := h.hdr.MessageID
		if i, ok := byID[id]; ok && id != "" {
			if h.rank < list[i].rank {
				list[i] = h
			}
			continue
		}
		byID[id] = len(list)
		list = append(list, h)
	}
	slices.SortStableFunc(list, func(a, b threadHit) int {
		// Same second: a reply names more ancestors than its parent.
		return cmp.Or(hitTime(a).Compare(hitTime(b)), cmp.Compare(len(a.hdr.References), len(b.hdr.References)),
			cmp.Compare(a.rank, b.rank), cmp.Compare(a.msg.UID, b.msg.UID))
	})
	out := &ThreadResult{Total: len(list), Incomplete: w.incomplete, Folders: w.folders, Messages: []ThreadMessage{}}
	if len(list) > limit {
		out.Omitted, out.HasMore = len(list)-limit, true
		list = list[len(list)-limit:]
	}
	for _, h := range list {
		tm := ThreadMessage{
			Folder: h.folder, UID: h.msg.UID, ID: msgID(h.msg.UIDValidity, h.msg.UID),
			MessageID: boundID(h.hdr.MessageID), From: firstAddress(h.hdr.From, messageAddr),
			Date: formatTime(hitTime(h)), Preview: threadPreview(ctx, mail, h),
		}
		tm.Subject, tm.SubjectTruncated = boundSubject(h.hdr.Subject, false)
		out.Messages = append(out.Messages, tm)
	}
	return out
}

func hitTime(h threadHit) time.Time {
	if !h.hdr.Date.IsZero() {
		return h.hdr.Date
	}
	return h.msg.InternalDate
}

// threadPreview is the start of a message's text: from the fetched prefix
// when it holds the whole message, else from the first bytes of its text
// part. A failure gives no preview, not a failed thread.
func threadPreview(ctx context.Context, mail Mailbox, h threadHit) string {
	if h.msg.Complete {
		b, _ := message.ParseBodies(h.msg.Raw)
		return preview(b.Text)
	}
	text, html := h.msg.Structure.Bodies()
	p := cmp.Or(text, html)
	if p == nil {
		return ""
	}
	raws, err := mail.FetchParts(ctx, h.folder, h.msg.UID, [][]int{p.Path}, threadPrefix)
	if err != nil || len(raws) != 1 {
		return ""
	}
	s, _ := message.DecodeText(raws[0], p.MediaType(), p.Params, p.Encoding)
	if p == html {
		s = message.HTMLToText(s)
	}
	return preview(s)
}

// preview cleans text for a one-line preview: quoted lines (">") and the
// attribution line above them left out, white space collapsed, at most
// previewChars characters.
func preview(text string) string {
	var words []string
	lines := strings.Split(clean(text), "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, ">") {
			continue
		}
		if strings.HasSuffix(t, "wrote:") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), ">") {
			continue
		}
		words = append(words, strings.Fields(t)...)
		if len(words) > previewChars {
			break
		}
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) > previewChars {
		s = strings.TrimSpace(string([]rune(s)[:previewChars-1])) + "…"
	}
	return s
}
