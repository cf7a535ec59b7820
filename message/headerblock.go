package message

import (
	"bufio"
	"bytes"

	"github.com/emersion/go-message/textproto"
)

// fields holds the raw header fields of one entity, by canonical key, in
// the order they appear.
type fields map[string][]string

// get returns the first value of key, or "".
func (f fields) get(key string) string {
	if v := f[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readFields reads the header block at the start of raw with go-message's
// textproto reader, skipping any line it rejects (a line without a colon, a
// key with invalid bytes, an mbox "From " line) instead of giving up on the
// rest. It returns the fields and the offset where the body starts; when the
// header block is not terminated, the offset is len(raw).
func readFields(raw []byte) (fields, int) {
	r := bytes.NewReader(raw)
	br := bufio.NewReader(r)
	f := fields{}
	consumed := func() int { return len(raw) - r.Len() - br.Buffered() }
	for {
		before := consumed()
		h, err := textproto.ReadHeader(br)
		addFields(f, h)
		if err == nil {
			break // blank line or end of input
		}
		if _, perr := br.Peek(1); perr != nil || consumed() == before {
			break // nothing left, or no progress
		}
	}
	return f, consumed()
}

// addFields appends the fields of h to f in their original order.
func addFields(f fields, h textproto.Header) {
	for it := h.Fields(); it.Next(); {
		f[it.Key()] = append(f[it.Key()], it.Value())
	}
}

// hasHeaderEnd reports whether raw contains the blank line that ends a
// header block. It stops at the first one, so a whole message costs only
// its header.
func hasHeaderEnd(raw []byte) bool {
	if bytes.HasPrefix(raw, []byte("\n")) || bytes.HasPrefix(raw, []byte("\r\n")) {
		return true
	}
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\n')
		if j < 0 {
			return false
		}
		rest := raw[i+j+1:]
		if bytes.HasPrefix(rest, []byte("\n")) || bytes.HasPrefix(rest, []byte("\r\n")) {
			return true
		}
		i += j + 1
	}
	return false
}

// completeLines cuts an unterminated header block after its last complete
// line, so that a prefix cut in the middle of a field does not yield a
// truncated value as if it were whole. (A header-only message whose last
// line lacks its CRLF loses that line: the price of not guessing.)
func completeLines(raw []byte) []byte {
	if hasHeaderEnd(raw) {
		return raw
	}
	return raw[:bytes.LastIndexByte(raw, '\n')+1]
}
