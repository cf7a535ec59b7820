package imap

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Message is one message as FetchMessage reads it.
type Message struct {
	UID, UIDValidity uint32
	Flags            []string
	InternalDate     time.Time
	Size             int64 // RFC822.SIZE
	Structure        *Part
	// Raw is the message as stored, headers included: all of it when
	// Complete, else its first prefixBytes bytes.
	Raw      []byte
	Complete bool
}

// FetchMessage reads one message with a single UID FETCH after the EXAMINE
// (none when the folder is selected already): UID FLAGS INTERNALDATE
// RFC822.SIZE BODYSTRUCTURE BODY.PEEK[]<0.prefixBytes>. BODY.PEEK never
// sets \Seen. prefixBytes <= 0 fetches the whole message. A UID the folder
// does not have is ErrMessageNotFound.
func (c *Client) FetchMessage(ctx context.Context, folder string, uid uint32, prefixBytes int64) (*Message, error) {
	op := fmt.Sprintf("fetch message %d in %q", uid, folder)
	if err := checkTarget(folder, uid); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var m *Message
	err := c.do(ctx, op, func(cn *conn) error {
		sel, _, err := cn.selectFolder(folder, false)
		if err != nil {
			return err
		}
		whole := wholeSection(prefixBytes)
		b, err := fetchOne(cn, uid, messageFetch(whole, true))
		if err != nil {
			return err
		}
		m = messageOf(b, sel.uidValidity, whole, prefixBytes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// FetchMessages reads many messages of folder with a single UID FETCH after
// the EXAMINE (none when the folder is selected already), with the items
// of FetchMessage. The messages come in ascending UID order; a UID the
// folder does not have is absent (on a kept selection, after a NOOP and a
// second look: see selection). No UID: nothing to do, no I/O.
// More than MaxPageSize UIDs, or UID 0, is ErrInvalid.
func (c *Client) FetchMessages(ctx context.Context, folder string, uids []uint32, prefixBytes int64) ([]*Message, error) {
	op := fmt.Sprintf("fetch %d messages in %q", len(uids), folder)
	err := checkFolder(folder)
	switch {
	case err != nil:
	case len(uids) > MaxPageSize:
		err = fmt.Errorf("%d UIDs, at most %d: %w", len(uids), MaxPageSize, ErrInvalid)
	case slices.Contains(uids, 0):
		err = fmt.Errorf("UID 0: %w", ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if len(uids) == 0 {
		return []*Message{}, nil
	}
	var out []*Message
	// Up to len(uids) prefixes: the deadline of a transfer of that size.
	timeout := c.transferTimeout(int64(len(uids)) * max(prefixBytes, 0))
	err = c.doTimeout(ctx, op, timeout, func(cn *conn) error {
		sel, _, err := cn.selectFolder(folder, false)
		if err != nil {
			return err
		}
		out, err = fetchMessages(cn, sel.uidValidity, uids, prefixBytes, true)
		if err != nil || !cn.reused || len(out) == len(uids) {
			return err
		}
		// A kept selection may predate the missing ones (see selection):
		// sync and ask for them once more.
		got := make(map[uint32]bool, len(out))
		for _, m := range out {
			got[m.UID] = true
		}
		missing := slices.DeleteFunc(slices.Clone(uids), func(u uint32) bool { return got[u] })
		if err := cn.sync(); err != nil {
			return err
		}
		more, err := fetchMessages(cn, sel.uidValidity, missing, prefixBytes, true)
		out = append(out, more...)
		slices.SortFunc(out, func(a, b *Message) int { return cmp.Compare(a.UID, b.UID) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fetchMessages runs one UID FETCH of uids on the selected folder and
// returns what came back for them, in ascending UID order. Answers for
// other UIDs (a server may report flag changes on its own) are left out.
func fetchMessages(cn *conn, uidValidity uint32, uids []uint32, prefixBytes int64, structure bool) ([]*Message, error) {
	whole := wholeSection(prefixBytes)
	want := make(map[uint32]bool, len(uids))
	for _, u := range uids {
		want[u] = true
	}
	bufs, err := collect(cn, cn.ic.Fetch(uidSet(uids), messageFetch(whole, structure)))
	if err != nil {
		return nil, fmt.Errorf("uid fetch: %w", err)
	}
	out := make([]*Message, 0, len(bufs))
	for _, b := range bufs {
		u := uint32(b.UID)
		if !want[u] || b.FindBodySection(whole) == nil {
			continue
		}
		want[u] = false // once, whatever the server repeats
		out = append(out, messageOf(b, uidValidity, whole, prefixBytes))
	}
	slices.SortFunc(out, func(a, b *Message) int { return cmp.Compare(a.UID, b.UID) })
	return out, nil
}

// wholeSection is BODY.PEEK[]<0.prefixBytes>, or BODY.PEEK[] when
// prefixBytes <= 0.
func wholeSection(prefixBytes int64) *goimap.FetchItemBodySection {
	whole := &goimap.FetchItemBodySection{Peek: true}
	if prefixBytes > 0 {
		whole.Partial = &goimap.SectionPartial{Size: prefixBytes}
	}
	return whole
}

// messageFetch is UID FLAGS INTERNALDATE RFC822.SIZE whole, and
// BODYSTRUCTURE when structure is set.
func messageFetch(whole *goimap.FetchItemBodySection, structure bool) *goimap.FetchOptions {
	opts := &goimap.FetchOptions{
		UID: true, Flags: true, InternalDate: true, RFC822Size: true,
		BodySection: []*goimap.FetchItemBodySection{whole},
	}
	if structure {
		opts.BodyStructure = &goimap.FetchItemBodyStructure{Extended: true}
	}
	return opts
}

// messageOf builds a Message from the answer to messageFetch.
func messageOf(b *imapclient.FetchMessageBuffer, uidValidity uint32, whole *goimap.FetchItemBodySection, prefixBytes int64) *Message {
	m := &Message{
		UID: uint32(b.UID), UIDValidity: uidValidity, Flags: flagStrings(b.Flags),
		InternalDate: b.InternalDate, Size: b.RFC822Size, Raw: b.FindBodySection(whole),
	}
	if b.BodyStructure != nil {
		m.Structure = structureOf(b.BodyStructure, nil)
	}
	n := int64(len(m.Raw))
	// Fewer bytes than asked: the server had no more.
	m.Complete = prefixBytes <= 0 || n < prefixBytes || m.Size <= n
	return m
}

// FetchParts returns the raw bodies of the sections at paths (still
// transfer-encoded, without their MIME headers), each cut at maxBytes
// (maxBytes <= 0: whole), with one UID FETCH of BODY.PEEK[path]<0.maxBytes>
// items. A path the message does not have gives an empty body.
func (c *Client) FetchParts(ctx context.Context, folder string, uid uint32, paths [][]int, maxBytes int64) ([][]byte, error) {
	op := fmt.Sprintf("fetch parts of message %d in %q", uid, folder)
	err := checkTarget(folder, uid)
	if err == nil && len(paths) == 0 {
		err = fmt.Errorf("no part asked: %w", ErrInvalid)
	}
	for _, p := range paths {
		if err == nil {
			err = checkPath(p)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var out [][]byte
	err = c.do(ctx, op, func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, false); err != nil {
			return err
		}
		var err error
		out, err = fetchSections(cn, uid, paths, maxBytes)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fetchSections runs FetchParts' UID FETCH on the selected folder.
func fetchSections(cn *conn, uid uint32, paths [][]int, maxBytes int64) ([][]byte, error) {
	sections := make([]*goimap.FetchItemBodySection, len(paths))
	for i, p := range paths {
		sections[i] = &goimap.FetchItemBodySection{Peek: true, Part: slices.Clone(p)}
		if maxBytes > 0 {
			sections[i].Partial = &goimap.SectionPartial{Size: maxBytes}
		}
	}
	b, err := fetchOne(cn, uid, &goimap.FetchOptions{UID: true, BodySection: sections})
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(sections))
	for i, s := range sections {
		out[i] = b.FindBodySection(s)
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	return out, nil
}

// fetchOne runs one UID FETCH of uid and returns its answer, or
// ErrMessageNotFound when the server answered OK with nothing.
func fetchOne(cn *conn, uid uint32, opts *goimap.FetchOptions) (*imapclient.FetchMessageBuffer, error) {
	bufs, err := collect(cn, cn.ic.Fetch(goimap.UIDSetNum(goimap.UID(uid)), opts))
	if err != nil {
		return nil, fmt.Errorf("uid fetch: %w", err)
	}
	for _, b := range bufs {
		if uint32(b.UID) == uid {
			return b, nil
		}
	}
	return nil, fmt.Errorf("uid %d: %w", uid, ErrMessageNotFound)
}

// checkTarget refuses an empty folder name and UID 0.
func checkTarget(folder string, uid uint32) error {
	if err := checkFolder(folder); err != nil {
		return err
	}
	if uid == 0 {
		return fmt.Errorf("UID 0: %w", ErrInvalid)
	}
	return nil
}

// checkPath refuses an empty section path or one with a number below 1.
func checkPath(p []int) error {
	if len(p) == 0 {
		return fmt.Errorf("empty part path: %w", ErrInvalid)
	}
	for _, n := range p {
		if n < 1 {
			return fmt.Errorf("part path %v: %w", p, ErrInvalid)
		}
	}
	return nil
}
