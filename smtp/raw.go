package smtp

import (
	"bytes"
	"io"
)

// Raw is a message composed earlier (a stored draft), sent as the bytes it
// was stored with, except that every Bcc field of its header is removed:
// the blind copies go into the Envelope only. Send takes it like a
// Message; it knows its size (the server's SIZE limit is checked) and
// whether its header needs SMTPUTF8.
type Raw struct {
	b    []byte // the message without its Bcc fields
	utf8 bool   // the header has 8-bit bytes
}

// NewRaw prepares stored for sending. A message without an empty line
// between header and body, or without any header field, is
// ErrInvalidArgument. stored is not changed.
func NewRaw(stored []byte) (*Raw, error) {
	end := headerEnd(stored)
	if end <= 0 {
		return nil, invalid("message", "no header, or no empty line after it")
	}
	header := stripFields(stored[:end], "bcc")
	b := make([]byte, 0, len(header)+len(stored)-end)
	b = append(append(b, header...), stored[end:]...)
	r := &Raw{b: b}
	for _, c := range header {
		if c >= 0x80 {
			r.utf8 = true
			break
		}
	}
	return r, nil
}

// WriteTo writes the message.
func (r *Raw) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(r.b)
	return int64(n), err
}

// Size is the number of bytes WriteTo writes.
func (r *Raw) Size() (int64, error) { return int64(len(r.b)), nil }

// Bytes returns the message as sent (callers must not change it).
func (r *Raw) Bytes() []byte { return r.b }

// headerNeedsUTF8 reports 8-bit bytes in the header (RFC 6532).
func (r *Raw) headerNeedsUTF8() bool { return r.utf8 }

// headerEnd is the length of the header block, its closing empty line
// included, or -1 when there is none.
func headerEnd(b []byte) int {
	if bytes.HasPrefix(b, []byte("\r\n")) || bytes.HasPrefix(b, []byte("\n")) {
		return -1 // an empty header
	}
	i := 0
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j+1]
		i += j + 1
		if string(line) == "\r\n" || string(line) == "\n" {
			return i
		}
	}
	return -1
}

// stripFields returns header without the fields named name (lower case),
// their folded continuation lines included.
func stripFields(header []byte, name string) []byte {
	out := make([]byte, 0, len(header))
	dropping := false
	for len(header) > 0 {
		j := bytes.IndexByte(header, '\n')
		line := header[:j+1] // the header ends with a line end (headerEnd)
		header = header[j+1:]
		if line[0] != ' ' && line[0] != '\t' {
			dropping = fieldName(line) == name
		}
		if !dropping {
			out = append(out, line...)
		}
	}
	return out
}

// fieldName is the lower-case name of the field that line starts, "" when
// it has no colon.
func fieldName(line []byte) string {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return ""
	}
	return string(bytes.ToLower(bytes.TrimRight(line[:i], " \t")))
}
