package imap

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/textproto"
	"strconv"
	"strings"
)

// Attachment sizes.
//
// An attachment's size in ReadMessage's Display is the size its download
// saves: the part decoded. BODYSTRUCTURE gives only the encoded size, so
// when the part lies inside the bytes ReadMessage fetched anyway (the whole
// message, or its first ReadOptions.PrefixBytes), it is decoded there with
// DecodeStream, the decoder downloads use, and counted: exact. Beyond those bytes it is estimated from the
// encoded size: base64 in lines of 76 characters (what mailers write)
// within a few bytes, quoted-printable as an upper bound, other encodings
// exact (nothing to undo).

// attachmentSize is the decoded size of attachment p: exact from its body
// in bodies (rawBodies of the fetched bytes) when that body is there and
// has the size BODYSTRUCTURE gives, else decodedSize's estimate.
func attachmentSize(p *Part, bodies map[string][]byte) int64 {
	if p.Encoding != "base64" && p.Encoding != "quoted-printable" {
		return p.Size
	}
	b, ok := bodies[pathKey(p.Path)]
	if !ok || int64(len(b)) != p.Size {
		return decodedSize(p)
	}
	var n countWriter
	if err := DecodeStream(&n, p.Encoding, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return decodedSize(p)
	}
	return int64(n)
}

// decodedSize estimates a part's size after its transfer encoding is
// undone, from its encoded size: base64 in lines of 76 characters, each
// but the last ended by CRLF (the last CRLF belongs to the boundary),
// counting the padding it cannot see (at most 2 bytes over);
// quoted-printable unchanged (an upper bound).
func decodedSize(p *Part) int64 {
	if p.Encoding != "base64" {
		return p.Size
	}
	chars := p.Size - 2*(p.Size/78)
	return chars / 4 * 3
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// pathKey is a part path as a map key: "2.1".
func pathKey(path []int) string {
	b := make([]byte, 0, 4*len(path))
	for i, n := range path {
		if i > 0 {
			b = append(b, '.')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}

// rawBodies maps the IMAP section path (pathKey) of each part of raw, a
// whole message or (whole false) its first bytes, to its body as BODY[path] gives it
// (still transfer-encoded), for the parts whose end is inside raw. It
// numbers parts as RFC 3501 §6.4.5 does and does not descend into
// forwarded messages (whose inside is no attachment of this one). Bounded
// like imap's part tree; each level scans its body once, so the cost is
// linear in len(raw).
func rawBodies(raw []byte, whole bool) map[string][]byte {
	w := partWalker{out: map[string][]byte{}}
	h, body := splitEntity(raw)
	if boundary, ok := multipartBoundary(h); ok {
		w.children(body, boundary, nil, 0, whole)
	} else if whole {
		w.out["1"] = body
	}
	return w.out
}

type partWalker struct {
	out   map[string][]byte
	parts int
}

// children walks the parts of a multipart body at path; complete: the body
// ends where the part does (it was not cut).
func (w *partWalker) children(body []byte, boundary string, path []int, depth int, complete bool) {
	if depth >= MaxDepth {
		return
	}
	for i, part := range splitMultipart(body, boundary, complete) {
		if w.parts >= MaxParts {
			return
		}
		w.parts++
		p := append(path[:len(path):len(path)], i+1)
		h, b := splitEntity(part.data)
		if sub, ok := multipartBoundary(h); ok {
			w.children(b, sub, p, depth+1, part.complete)
		} else if part.complete {
			w.out[pathKey(p)] = b
		}
	}
}

// splitEntity splits an entity at the blank line after its header; an
// entity without one is all header (RFC 3501 gives it an empty body).
func splitEntity(e []byte) (header, body []byte) {
	if bytes.HasPrefix(e, []byte("\r\n")) {
		return nil, e[2:]
	}
	if bytes.HasPrefix(e, []byte("\n")) {
		return nil, e[1:]
	}
	i := bytes.Index(e, []byte("\n\r\n"))
	j := bytes.Index(e, []byte("\n\n"))
	switch {
	case i >= 0 && (j < 0 || i < j):
		return e[:i+1], e[i+3:]
	case j >= 0:
		return e[:j+1], e[j+2:]
	}
	return e, nil
}

// multipartBoundary returns the boundary of a multipart header.
func multipartBoundary(header []byte) (string, bool) {
	if len(header) == 0 {
		return "", false
	}
	h, err := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(header), strings.NewReader("\r\n")))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return "", false
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return "", false
	}
	return params["boundary"], true
}

// rawPart is one part of a multipart body; complete: a delimiter follows
// it (it did not run into the end of the bytes).
type rawPart struct {
	data     []byte
	complete bool
}

// splitMultipart splits a multipart body at its delimiter lines (RFC 2046
// §5.1.1): the CRLF before a delimiter belongs to it; the preamble and the
// epilogue are dropped. complete: body is not cut, so its end also ends a
// delimiter line.
func splitMultipart(body []byte, boundary string, complete bool) []rawPart {
	delim := []byte("--" + boundary)
	var parts []rawPart
	start := -1 // start of the current part
	for pos := 0; pos <= len(body); {
		i := bytes.Index(body[pos:], delim)
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + len(delim)
		if at > 0 && body[at-1] != '\n' {
			continue // not at the start of a line
		}
		end := lineEnd(body, pos)
		if end == len(body) && !complete {
			break // the delimiter line may be cut
		}
		closing := bytes.HasPrefix(body[pos:], []byte("--"))
		if !closing && len(bytes.TrimRight(body[pos:end], " \t\r\n")) > 0 {
			continue // a longer boundary that starts with this one
		}
		if start >= 0 {
			stop := at
			if stop > start && body[stop-1] == '\n' {
				stop--
				if stop > start && body[stop-1] == '\r' {
					stop--
				}
			}
			parts = append(parts, rawPart{data: body[start:stop], complete: true})
		}
		if closing {
			return parts
		}
		start, pos = end, end
	}
	if start >= 0 && start <= len(body) {
		parts = append(parts, rawPart{data: body[start:]})
	}
	return parts
}

// lineEnd returns the index after the line break that ends the line
// containing body[pos], or len(body).
func lineEnd(body []byte, pos int) int {
	i := bytes.IndexByte(body[pos:], '\n')
	if i < 0 {
		return len(body)
	}
	return pos + i + 1
}

// MinDecodedSize is a lower bound of the part's decoded size: base64
// carries at least 1 byte per 2 encoded ones (3 per 4, less line breaks on
// lines of 4 or more), quoted-printable at least 1 per 4 (=XX and soft
// breaks).
func (p *Part) MinDecodedSize() int64 {
	switch p.Encoding {
	case "base64":
		return p.Size / 2
	case "quoted-printable":
		return p.Size / 4
	}
	return p.Size
}
