package imap

import (
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
	whole := &goimap.FetchItemBodySection{Peek: true}
	if prefixBytes > 0 {
		whole.Partial = &goimap.SectionPartial{Size: prefixBytes}
	}
	opts := &goimap.FetchOptions{
		UID: true, Flags: true, InternalDate: true, RFC822Size: true,
		BodyStructure: &goimap.FetchItemBodyStructure{Extended: true},
		BodySection:   []*goimap.FetchItemBodySection{whole},
	}
	var m *Message
	err := c.do(ctx, op, func(cn *conn) error {
		sel, _, err := cn.selectFolder(folder, false)
		if err != nil {
			return err
		}
		b, err := fetchOne(cn, uid, opts)
		if err != nil {
			return err
		}
		m = &Message{
			UID: uid, UIDValidity: sel.uidValidity, Flags: flagStrings(b.Flags),
			InternalDate: b.InternalDate, Size: b.RFC822Size, Raw: b.FindBodySection(whole),
		}
		if b.BodyStructure != nil {
			m.Structure = structureOf(b.BodyStructure, nil)
		}
		n := int64(len(m.Raw))
		// Fewer bytes than asked: the server had no more.
		m.Complete = prefixBytes <= 0 || n < prefixBytes || m.Size <= n
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
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
	sections := make([]*goimap.FetchItemBodySection, len(paths))
	for i, p := range paths {
		if err == nil {
			err = checkPath(p)
		}
		sections[i] = &goimap.FetchItemBodySection{Peek: true, Part: slices.Clone(p)}
		if maxBytes > 0 {
			sections[i].Partial = &goimap.SectionPartial{Size: maxBytes}
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
		b, err := fetchOne(cn, uid, &goimap.FetchOptions{UID: true, BodySection: sections})
		if err != nil {
			return err
		}
		out = make([][]byte, len(sections))
		for i, s := range sections {
			out[i] = b.FindBodySection(s)
			if out[i] == nil {
				out[i] = []byte{}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fetchOne runs one UID FETCH of uid and returns its answer, or
// ErrMessageNotFound when the server answered OK with nothing.
func fetchOne(cn *conn, uid uint32, opts *goimap.FetchOptions) (*imapclient.FetchMessageBuffer, error) {
	bufs, err := cn.ic.Fetch(goimap.UIDSetNum(goimap.UID(uid)), opts).Collect()
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
