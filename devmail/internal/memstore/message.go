package memstore

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	gomessage "github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

type message struct {
	// immutable
	uid imap.UID
	buf []byte
	t   time.Time
	tag string // devmail: the caller's name for buf (its file), kept by COPY and MOVE

	// mutable, protected by Mailbox.mutex
	flags map[imap.Flag]struct{}
}

func (msg *message) fetch(w *imapserver.FetchResponseWriter, options *imap.FetchOptions) error {
	w.WriteUID(msg.uid)

	if options.Flags {
		w.WriteFlags(msg.flagList())
	}
	if options.InternalDate {
		w.WriteInternalDate(msg.t)
	}
	if options.RFC822Size {
		w.WriteRFC822Size(int64(len(msg.buf)))
	}
	if options.Envelope {
		w.WriteEnvelope(msg.envelope())
	}
	// devmail: one linear walk of the parts, and only when an item needs it.
	var root *mimePart
	parts := func() *mimePart {
		if root == nil {
			root = parseMIME(msg.buf)
		}
		return root
	}
	if options.BodyStructure != nil {
		w.WriteBodyStructure(parts().bodyStructure(msg.buf))
	}

	for _, bs := range options.BodySection {
		var buf []byte
		if len(bs.Part) == 0 {
			buf = imapserver.ExtractBodySection(bytes.NewReader(msg.buf), bs)
		} else {
			buf = bodySection(msg.buf, parts(), bs)
		}
		wc := w.WriteBodySection(bs, int64(len(buf)))
		_, writeErr := wc.Write(buf)
		closeErr := wc.Close()
		if writeErr != nil {
			return writeErr
		}
		if closeErr != nil {
			return closeErr
		}
	}

	for _, bs := range options.BinarySection {
		var buf []byte
		if len(bs.Part) == 0 {
			buf = imapserver.ExtractBinarySection(bytes.NewReader(msg.buf), bs)
		} else {
			buf = binarySection(msg.buf, parts(), bs.Part, bs.Partial)
		}
		wc := w.WriteBinarySection(bs, int64(len(buf)))
		_, writeErr := wc.Write(buf)
		closeErr := wc.Close()
		if writeErr != nil {
			return writeErr
		}
		if closeErr != nil {
			return closeErr
		}
	}

	for _, bss := range options.BinarySectionSize {
		var n uint32
		if len(bss.Part) == 0 {
			n = imapserver.ExtractBinarySectionSize(bytes.NewReader(msg.buf), bss)
		} else {
			n = uint32(len(binarySection(msg.buf, parts(), bss.Part, nil)))
		}
		w.WriteBinarySectionSize(bss, n)
	}

	return w.Close()
}

func (msg *message) envelope() *imap.Envelope {
	br := bufio.NewReader(bytes.NewReader(msg.buf))
	header, err := textproto.ReadHeader(br)
	if err != nil {
		return nil
	}
	return imapserver.ExtractEnvelope(header)
}

func (msg *message) flagList() []imap.Flag {
	var flags []imap.Flag
	for flag := range msg.flags {
		flags = append(flags, flag)
	}
	return flags
}

func (msg *message) store(store *imap.StoreFlags) {
	switch store.Op {
	case imap.StoreFlagsSet:
		msg.flags = make(map[imap.Flag]struct{})
		fallthrough
	case imap.StoreFlagsAdd:
		for _, flag := range store.Flags {
			msg.flags[canonicalFlag(flag)] = struct{}{}
		}
	case imap.StoreFlagsDel:
		for _, flag := range store.Flags {
			delete(msg.flags, canonicalFlag(flag))
		}
	default:
		panic(fmt.Errorf("unknown STORE flag operation: %v", store.Op))
	}
}

func (msg *message) reader() *gomessage.Entity {
	r, _ := gomessage.Read(bytes.NewReader(msg.buf))
	if r == nil {
		r, _ = gomessage.New(gomessage.Header{}, bytes.NewReader(nil))
	}
	return r
}

func (msg *message) search(seqNum uint32, criteria *imap.SearchCriteria) bool {
	return msg.match(seqNum, criteria, &lazyHeader{msg: msg})
}

// lazyHeader is the header of a message parsed at most once for one
// search, when a criterion needs it. devmail: a thread search is an OR
// tree of HEADER criteria (Message-ID, In-Reply-To, References for every
// id), and each branch parsed the header again: 108 MB per get_thread on
// the sandbox.
type lazyHeader struct {
	msg    *message
	header *mail.Header
}

func (l *lazyHeader) get() mail.Header {
	if l.header == nil {
		l.header = &mail.Header{Header: l.msg.reader().Header}
	}
	return *l.header
}

// match is search with the message's lazily parsed header.
func (msg *message) match(seqNum uint32, criteria *imap.SearchCriteria, lh *lazyHeader) bool {
	for _, seqSet := range criteria.SeqNum {
		if seqNum == 0 || !seqSet.Contains(seqNum) {
			return false
		}
	}
	for _, uidSet := range criteria.UID {
		if !uidSet.Contains(msg.uid) {
			return false
		}
	}
	if !matchDate(msg.t, criteria.Since, criteria.Before) {
		return false
	}

	for _, flag := range criteria.Flag {
		if _, ok := msg.flags[canonicalFlag(flag)]; !ok {
			return false
		}
	}
	for _, flag := range criteria.NotFlag {
		if _, ok := msg.flags[canonicalFlag(flag)]; ok {
			return false
		}
	}

	if criteria.Larger != 0 && int64(len(msg.buf)) <= criteria.Larger {
		return false
	}
	if criteria.Smaller != 0 && int64(len(msg.buf)) >= criteria.Smaller {
		return false
	}

	// devmail: the header is parsed only for a criterion that needs it (a
	// SEARCH of flags, UIDs or sizes over 10,000 messages parsed every one),
	// and once per search (lazyHeader).
	for _, fieldCriteria := range criteria.Header {
		header := lh.get()
		if !matchHeaderFields(header.FieldsByKey(fieldCriteria.Key), fieldCriteria.Value) {
			return false
		}
	}

	if !criteria.SentSince.IsZero() || !criteria.SentBefore.IsZero() {
		header := lh.get()
		t, err := header.Date()
		if err != nil {
			return false
		} else if !matchDate(t, criteria.SentSince, criteria.SentBefore) {
			return false
		}
	}

	// devmail: TEXT and BODY walk the parts found in one linear pass.
	if len(criteria.Text) > 0 || len(criteria.Body) > 0 {
		root := parseMIME(msg.buf)
		for _, text := range criteria.Text {
			if !matchText(msg.buf, root, text, true) {
				return false
			}
		}
		for _, body := range criteria.Body {
			if !matchText(msg.buf, root, body, false) {
				return false
			}
		}
	}

	for _, not := range criteria.Not {
		if msg.match(seqNum, &not, lh) {
			return false
		}
	}
	for _, or := range criteria.Or {
		if !msg.match(seqNum, &or[0], lh) && !msg.match(seqNum, &or[1], lh) {
			return false
		}
	}

	return true
}

func matchDate(t, since, before time.Time) bool {
	// We discard time zone information by setting it to UTC.
	// RFC 3501 explicitly requires zone unaware date comparison.
	t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)

	if !since.IsZero() && t.Before(since) {
		return false
	}
	if !before.IsZero() && !t.Before(before) {
		return false
	}
	return true
}

func matchHeaderFields(fields gomessage.HeaderFields, pattern string) bool {
	if pattern == "" {
		return fields.Len() > 0
	}

	pattern = strings.ToLower(pattern)
	for fields.Next() {
		v, _ := fields.Text()
		if strings.Contains(strings.ToLower(v), pattern) {
			return true
		}
	}
	return false
}

func canonicalFlag(flag imap.Flag) imap.Flag {
	return imap.Flag(strings.ToLower(string(flag)))
}
