package imap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/message"
)

// Bounds of a conversation search (Thread).
const (
	// ThreadRounds is the most rounds of searches Thread runs.
	ThreadRounds = 10
	// ThreadIDs is the most message ids Thread asks for.
	ThreadIDs = 500
	// ThreadMessages is the most messages Thread collects.
	ThreadMessages = 1000
	// threadPrefix is how much of each message is fetched: its header and
	// the start of its text for the preview.
	threadPrefix = 16 << 10
	// threadFetch is the number of messages fetched at once.
	threadFetch = 200
)

// ThreadOptions says how Thread reads a conversation.
type ThreadOptions struct {
	// UIDValidity, when not 0, is the UIDVALIDITY the caller's reference
	// was issued under: a folder with another is ErrUIDValidityChanged.
	UIDValidity uint32
	// Limit is the most messages returned (the newest); <= 0: all.
	Limit int
}

// Thread is a conversation as Thread found it.
type Thread struct {
	// Messages are oldest first, one per Message-ID (the copy in the
	// earliest folder of Folders); over Limit, the newest Limit of them.
	Messages []ThreadMessage
	// Total counts the messages found; Omitted those left out by Limit.
	Total, Omitted int
	// Incomplete: the search stopped at a bound (ThreadRounds, ThreadIDs,
	// ThreadMessages); more may exist.
	Incomplete bool
	// Folders are the folders searched, in the search order.
	Folders []string
}

// ThreadMessage is one message of a Thread.
type ThreadMessage struct {
	Folder string
	*Message
	Header message.Header
	// Text is the start of its text (HTML rendered as text), for a
	// preview: "" when it has none or it could not be fetched.
	Text string
}

// Time is the message's Date header, else its arrival time.
func (m ThreadMessage) Time() time.Time {
	if !m.Header.Date.IsZero() {
		return m.Header.Date
	}
	return m.InternalDate
}

// Thread returns the conversation of message uid of folder: every message
// linked to it by Message-ID, In-Reply-To or References, found in folder,
// INBOX, then the \Sent, \Archive and \All folders that exist (or a
// folder named as Sent usually is, when none has \Sent). It runs rounds of
// SearchThread over every folder for the ids learnt in the round before,
// FetchMessages of the first 16 KiB of what they find, until no new id
// comes or a bound is reached; then, for each message returned that did
// not come whole, one FetchParts of the start of its text. A UID the
// folder does not have is ErrMessageNotFound; a folder of the search
// order that does not exist is skipped.
//
// THREAD=REFERENCES (RFC 5256) is not used, although Dovecot offers it:
// it threads one folder only, and its subject gathering (the REFERENCES
// algorithm, step 5) joins messages that merely share a base subject,
// such as two "Your code" mails of one sender, which the ids alone keep
// apart. Gmail's X-GM-THRID would be exact, but go-imap cannot parse the
// FETCH item.
func (c *Client) Thread(ctx context.Context, folder string, uid uint32, o ThreadOptions) (*Thread, error) {
	orig, err := c.FetchMessage(ctx, folder, uid, threadPrefix)
	if err != nil {
		return nil, err
	}
	if v := o.UIDValidity; v != 0 && v != orig.UIDValidity {
		return nil, fmt.Errorf("thread of message %d in %q: %w: the reference is for %d, the folder has %d", uid, folder, ErrUIDValidityChanged, v, orig.UIDValidity)
	}
	folders, err := c.threadFolders(ctx, folder)
	if err != nil {
		return nil, err
	}
	w := &threadWalk{c: c, folders: folders, seen: map[hitKey]bool{}, known: map[string]bool{}}
	w.add(threadHit{folder: folder, msg: orig, hdr: parseHeader(orig)})
	if err := w.run(ctx); err != nil {
		return nil, err
	}
	return w.thread(ctx, o.Limit), nil
}

// threadFolders is the search order: the given folder, INBOX, then the
// \Sent, \Archive and \All folders that exist, each once.
func (c *Client) threadFolders(ctx context.Context, folder string) ([]string, error) {
	list, err := c.ListFolders(ctx, false)
	if err != nil {
		return nil, err
	}
	out := []string{folder}
	addName := func(name string) {
		if !slices.ContainsFunc(out, func(f string) bool { return canonicalFolder(f) == canonicalFolder(name) }) {
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
	if !slices.ContainsFunc(list, func(f Folder) bool { return strings.EqualFold(f.SpecialUse, `\Sent`) }) {
		for _, f := range list { // no \Sent attribute: a usual name
			if strings.EqualFold(f.Name, "Sent") || strings.EqualFold(f.Name, "Sent Items") || strings.EqualFold(f.Name, "INBOX.Sent") {
				addName(f.Name)
			}
		}
	}
	return out, nil
}

func parseHeader(m *Message) message.Header {
	h, _ := message.ParseHeader(m.Raw)
	return h
}

// threadHit is a message found for the thread.
type threadHit struct {
	folder string
	rank   int // the folder's place in the search order
	msg    *Message
	hdr    message.Header
}

// threadWalk follows a conversation to a fixed point: each round searches
// every folder for the ids learnt in the round before, and the messages
// found bring their own ids, until no new id comes or a bound is reached.
type threadWalk struct {
	c          *Client
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
		case len(w.known) >= ThreadIDs:
			w.incomplete = true
		default:
			w.known[id] = true
			w.pending = append(w.pending, id)
		}
	}
}

func (w *threadWalk) run(ctx context.Context) error {
	for round := 0; len(w.pending) > 0; round++ {
		if round == ThreadRounds {
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
	for chunk := range slices.Chunk(ids, MaxThreadIDs) {
		uids, err := w.c.SearchThread(ctx, folder, chunk)
		if errors.Is(err, ErrFolderNotFound) && rank > 0 {
			return nil
		}
		if err != nil {
			return err
		}
		uids = slices.DeleteFunc(uids, func(u uint32) bool { return w.seen[hitKey{folder, u}] })
		if room := ThreadMessages - len(w.hits); len(uids) > room {
			uids, w.incomplete = uids[:max(room, 0)], true
		}
		for part := range slices.Chunk(uids, threadFetch) {
			msgs, err := w.c.FetchMessages(ctx, folder, part, threadPrefix)
			if err != nil {
				return err
			}
			for _, m := range msgs {
				w.add(threadHit{folder: folder, rank: rank, msg: m, hdr: parseHeader(m)})
			}
		}
	}
	return nil
}

// thread keeps one message per Message-ID (the copy in the earliest
// folder of the search order), sorts them oldest first, and keeps the
// newest limit, with the start of their text.
func (w *threadWalk) thread(ctx context.Context, limit int) *Thread {
	list := w.unique()
	slices.SortStableFunc(list, func(a, b threadHit) int {
		// Same second: a reply names more ancestors than its parent.
		return cmp.Or(a.time().Compare(b.time()), cmp.Compare(len(a.hdr.References), len(b.hdr.References)),
			cmp.Compare(a.rank, b.rank), cmp.Compare(a.msg.UID, b.msg.UID))
	})
	out := &Thread{Total: len(list), Incomplete: w.incomplete, Folders: w.folders, Messages: []ThreadMessage{}}
	if limit > 0 && len(list) > limit {
		out.Omitted = len(list) - limit
		list = list[len(list)-limit:]
	}
	for _, h := range list {
		m := ThreadMessage{Folder: h.folder, Message: h.msg, Header: h.hdr}
		m.Text = w.c.startOfText(ctx, m)
		out.Messages = append(out.Messages, m)
	}
	return out
}

// unique keeps one hit per Message-ID: the one of the lowest rank.
func (w *threadWalk) unique() []threadHit {
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
	return list
}

func (h threadHit) time() time.Time {
	return ThreadMessage{Message: h.msg, Header: h.hdr}.Time()
}

// startOfText is the start of a message's text: from the fetched prefix
// when it holds the whole message, else from the first bytes of its text
// part. A failure gives no text, not a failed thread.
func (c *Client) startOfText(ctx context.Context, m ThreadMessage) string {
	if m.Complete {
		b, _ := message.ParseBodies(m.Raw)
		return b.Text
	}
	text, html := m.Structure.Bodies()
	p := cmp.Or(text, html)
	if p == nil {
		return ""
	}
	raws, err := c.FetchParts(ctx, m.Folder, m.UID, [][]int{p.Path}, threadPrefix)
	if err != nil || len(raws) != 1 {
		return ""
	}
	s, _ := message.DecodeText(raws[0], p.MediaType(), p.Params, p.Encoding)
	if p == html {
		s = message.HTMLToText(s)
	}
	return s
}
