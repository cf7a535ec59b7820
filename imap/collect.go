package imap

import (
	"fmt"
	"io"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// collect is FetchCommand.Collect without a data race that go-imap
// (v2.0.0-beta.8) has when the connection breaks in the middle of a body
// literal. The caller reads a literal from the decoder's buffer while
// imapclient's reader goroutine waits; the first failed Read (or an end of
// stream before the literal's end) lets that goroutine go on with the same
// buffer, and Collect then reads the literal again to discard it: both
// goroutines use the buffer at once. collect reads each literal once; when
// one fails or comes out short, it closes the connection and waits for the
// reader goroutine to end (abandon) and never touches the command again.
func collect(cn *conn, cmd *imapclient.FetchCommand) ([]*imapclient.FetchMessageBuffer, error) {
	var bufs []*imapclient.FetchMessageBuffer
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		buf := &imapclient.FetchMessageBuffer{SeqNum: msg.SeqNum}
		for item := msg.Next(); item != nil; item = msg.Next() {
			if err := fill(buf, item); err != nil {
				cn.abandon()
				return nil, err
			}
		}
		bufs = append(bufs, buf)
	}
	if err := cmd.Close(); err != nil {
		return nil, err
	}
	return bufs, nil
}

// fill adds item to buf, as FetchMessageBuffer's own (unexported) method
// does for the items this package asks for; a body literal is read whole
// or the error says why not.
func fill(buf *imapclient.FetchMessageBuffer, item imapclient.FetchItemData) error {
	switch item := item.(type) {
	case imapclient.FetchItemDataBodySection:
		b, err := readLiteral(item.Literal)
		if err != nil {
			return err
		}
		buf.BodySection = append(buf.BodySection, imapclient.FetchBodySectionBuffer{Section: item.Section, Bytes: b})
	case imapclient.FetchItemDataBinarySection:
		b, err := readLiteral(item.Literal)
		if err != nil {
			return err
		}
		buf.BinarySection = append(buf.BinarySection, imapclient.FetchBinarySectionBuffer{Section: item.Section, Bytes: b})
	case imapclient.FetchItemDataFlags:
		buf.Flags = item.Flags
	case imapclient.FetchItemDataEnvelope:
		buf.Envelope = item.Envelope
	case imapclient.FetchItemDataInternalDate:
		buf.InternalDate = item.Time
	case imapclient.FetchItemDataRFC822Size:
		buf.RFC822Size = item.Size
	case imapclient.FetchItemDataUID:
		buf.UID = item.UID
	case imapclient.FetchItemDataBodyStructure:
		buf.BodyStructure = item.BodyStructure
	case imapclient.FetchItemDataBinarySectionSize:
		buf.BinarySectionSize = append(buf.BinarySectionSize, item)
	case imapclient.FetchItemDataModSeq:
		buf.ModSeq = item.ModSeq
	}
	return nil
}

// readLiteral reads a literal whole; nil reads as nothing. A literal that
// ends before its announced size failed (go-imap's reader returns an end
// of stream when the connection closes in the middle).
func readLiteral(lit goimap.LiteralReader) ([]byte, error) {
	if lit == nil {
		return nil, nil
	}
	b, err := io.ReadAll(lit)
	if err == nil {
		err = shortLiteral(lit.Size(), int64(len(b)))
	}
	return b, err
}

// shortLiteral is the error of a literal of size bytes that ended after n
// (go-imap's reader ends it early when the connection closes), or nil.
func shortLiteral(size, n int64) error {
	if n == size {
		return nil
	}
	return fmt.Errorf("literal of %d bytes ended after %d: %w", size, n, io.ErrUnexpectedEOF)
}

// abandon closes a connection whose FETCH answer cannot be read to its
// end, and returns once imapclient's reader goroutine has ended: nothing
// then reads the connection's buffer but the caller (see collect).
func (cn *conn) abandon() {
	cn.spoiled = true
	cn.close()
}
