package imap

import (
	"context"
	"fmt"
	"io"
	"mime"
	"strings"
)

// An attachment is read the way read_email lists it: Part.Attachments'
// order is the index, SafeMediaType and DefaultName are what a download,
// a forward and the web inbox call it, and StreamAttachment writes its
// bytes decoded with DecodeStream, the decoder that counts the sizes
// ReadMessage reports.

// PartReader is what the attachment operations need of a mailbox (Client
// has it): the structure of a message and the bytes of one part.
type PartReader interface {
	FetchMessage(ctx context.Context, folder string, uid uint32, prefixBytes int64) (*Message, error)
	StreamPart(ctx context.Context, folder string, uid uint32, path []int, w io.Writer) (int64, error)
}

var _ PartReader = (*Client)(nil)

// AttachmentIndexError says that a message has no attachment at Index: it
// has Count of them.
type AttachmentIndexError struct {
	UID          uint32
	Count, Index int
}

func (e *AttachmentIndexError) Error() string {
	return fmt.Sprintf("imap: message %d has %d attachments, not %d", e.UID, e.Count, e.Index+1)
}

// FindAttachment fetches the structure of message uid (not its body) and
// returns the attachment at index, in Part.Attachments' order, and the
// message. validity, when not 0, is the UIDVALIDITY the caller's id was
// issued under: another one is ErrUIDValidityChanged. An index out of
// range is an *AttachmentIndexError.
func FindAttachment(ctx context.Context, r PartReader, folder string, uid, validity uint32, index int) (*Part, *Message, error) {
	msg, err := r.FetchMessage(ctx, folder, uid, 1)
	if err != nil {
		return nil, nil, err
	}
	if validity != 0 && validity != msg.UIDValidity {
		return nil, nil, fmt.Errorf("message %d of %q: %w", uid, folder, ErrUIDValidityChanged)
	}
	var list []*Part
	if msg.Structure != nil {
		list = msg.Structure.Attachments()
	}
	if index < 0 || index >= len(list) {
		return nil, nil, &AttachmentIndexError{UID: uid, Count: len(list), Index: index}
	}
	return list[index], msg, nil
}

// StreamAttachment writes part p of message uid to w, its transfer
// encoding undone on the way (DecodeStream): it is never held whole.
func StreamAttachment(ctx context.Context, r PartReader, folder string, uid uint32, p *Part, w io.Writer) error {
	return DecodeStream(w, p.Encoding, func(w io.Writer) error {
		_, err := r.StreamPart(ctx, folder, uid, p.Path, w)
		return err
	})
}

// SafeMediaType is the part's type/subtype, or application/octet-stream
// when either is empty or not an RFC 2045 token: a server passes on what
// the mail says, and a hostile one says anything ("x-evil\x1b; name*=...").
func (p *Part) SafeMediaType() string {
	if !IsToken(p.Type) || !IsToken(p.Subtype) {
		return "application/octet-stream"
	}
	return p.MediaType()
}

// DefaultName is the sender's file name of attachment index, or
// attachment-N with an extension from the media type.
func (p *Part) DefaultName(index int) string {
	if p.Filename != "" {
		return p.Filename
	}
	ext := ".bin"
	if p.SafeMediaType() == "message/rfc822" {
		ext = ".eml"
	} else if exts, _ := mime.ExtensionsByType(p.SafeMediaType()); len(exts) > 0 {
		ext = exts[0]
	}
	return fmt.Sprintf("attachment-%d%s", index, ext)
}

// IsToken reports an RFC 2045 token: printable ASCII but for space and
// tspecials.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}
