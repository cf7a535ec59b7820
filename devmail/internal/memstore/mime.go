package memstore

// This file is devmail's MIME walk: one linear pass over a message that
// finds every part (header, body, end, line counts) so that BODYSTRUCTURE,
// body sections and SEARCH never re-read the rest of the message at each
// level, as upstream's nested readers do (a 757 KB mail of message/rfc822
// parts nested 8,000 deep took 26 s and 3 GB for one SEARCH). Nesting and
// part counts are bounded: a part past the bounds is kept as an opaque
// application/octet-stream leaf (its bytes are still served whole), so mail
// that SMTP accepted is never refused.

import (
	"bufio"
	"bytes"
	"strings"

	gomessage "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

const (
	// MaxMIMEDepth is how deep parts nest (multipart and message/rfc822
	// levels) before the deeper part is an opaque leaf.
	MaxMIMEDepth = 100
	// MaxMIMEParts is how many parts a message has before the rest of the
	// multipart being read is one opaque leaf.
	MaxMIMEParts = 10000
)

// mimePart is one entity of a message: the message itself, a part of a
// multipart, or the message inside a message/rfc822 part. Offsets index
// the message's bytes.
type mimePart struct {
	hdrStart, bodyStart, end int
	bodyLine, endLine        int // line ends before bodyStart and before end
	header                   textproto.Header
	mediaType                string // lower case, e.g. "text/plain"
	params                   map[string]string
	children                 []*mimePart // multipart
	inner                    *mimePart   // message/rfc822, message/global
	opaque                   bool        // past the bounds: a leaf
}

func (p *mimePart) isMultipart() bool {
	return !p.opaque && strings.HasPrefix(p.mediaType, "multipart/")
}

// numLines is the number of lines of the body.
func (p *mimePart) numLines() int64 { return int64(max(0, p.endLine-p.bodyLine)) }

// parseMIME walks buf once.
func parseMIME(buf []byte) *mimePart {
	s := &mimeScanner{buf: buf, open: make(map[string]int)}
	return s.entity(0, "")
}

// mimeScanner reads a message line by line. The boundaries of the
// multiparts being read are open; a line that is a delimiter of any of
// them ends every part inside it (the outermost match wins, as with
// nested multipart readers).
type mimeScanner struct {
	buf    []byte
	pos    int
	line   int // line ends before pos
	levels []string
	open   map[string]int // boundary -> outermost level
	parts  int

	stopped   bool // the line at pos is a delimiter of stopLevel
	stopLevel int
	stopFinal bool
}

// peek returns the line at pos with its line end, or false at the end.
func (s *mimeScanner) peek() ([]byte, bool) {
	if s.pos >= len(s.buf) {
		return nil, false
	}
	rest := s.buf[s.pos:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i+1], true
	}
	return rest, true
}

func (s *mimeScanner) advance(line []byte) {
	s.pos += len(line)
	if len(line) > 0 && line[len(line)-1] == '\n' {
		s.line++
	}
}

// delimiter reports whether line is a delimiter of an open boundary.
func (s *mimeScanner) delimiter(line []byte) (level int, final, ok bool) {
	if len(s.levels) == 0 || len(line) < 3 || line[0] != '-' || line[1] != '-' {
		return 0, false, false
	}
	rest := bytes.TrimRight(line[2:], " \t\r\n")
	if l, ok := s.open[string(rest)]; ok {
		return l, false, true
	}
	if b, cut := bytes.CutSuffix(rest, []byte("--")); cut {
		if l, ok := s.open[string(b)]; ok {
			return l, true, true
		}
	}
	return 0, false, false
}

// checkStop marks a stop when line is a delimiter.
func (s *mimeScanner) checkStop(line []byte) bool {
	if l, final, ok := s.delimiter(line); ok {
		s.stopped, s.stopLevel, s.stopFinal = true, l, final
		return true
	}
	return false
}

// skipBody reads lines up to a delimiter or the end.
func (s *mimeScanner) skipBody() {
	for {
		line, ok := s.peek()
		if !ok || s.checkStop(line) {
			return
		}
		s.advance(line)
	}
}

// setEnd ends p where the scanner stopped: before the line end that
// precedes a delimiter (it belongs to the delimiter), or at the end; there
// too without its last line end when a multipart is still open (its close
// delimiter is missing), as a multipart reader reads it.
func (s *mimeScanner) setEnd(p *mimePart) {
	p.end, p.endLine = s.pos, s.line
	if s.stopped || len(s.levels) > 0 {
		switch {
		case s.pos >= 2 && s.buf[s.pos-2] == '\r' && s.buf[s.pos-1] == '\n':
			p.end, p.endLine = s.pos-2, s.line-1
		case s.pos >= 1 && s.buf[s.pos-1] == '\n':
			p.end, p.endLine = s.pos-1, s.line-1
		}
	}
	if p.end < p.bodyStart {
		p.end, p.endLine = p.bodyStart, p.bodyLine
	}
}

// entity reads one entity starting at pos: its header block, then its body.
func (s *mimeScanner) entity(depth int, parentType string) *mimePart {
	s.parts++
	p := &mimePart{hdrStart: s.pos}
	s.readHeader(p, parentType)
	switch {
	case s.stopped:
	case depth > MaxMIMEDepth || s.parts > MaxMIMEParts:
		p.opaque = true
		s.skipBody()
	case p.isMultipart():
		s.multipart(p, depth)
	case p.mediaType == "message/rfc822" || p.mediaType == "message/global":
		p.inner = s.entity(depth+1, "")
	default:
		s.skipBody()
	}
	s.setEnd(p)
	// A part that starts at the very end (after a last delimiter) ends
	// there too: its parent never ends before it.
	last := p.inner
	if n := len(p.children); n > 0 {
		last = p.children[n-1]
	}
	if last != nil && last.end > p.end {
		p.end, p.endLine = last.end, last.endLine
	}
	return p
}

// readHeader reads the header block up to its empty line (or a delimiter,
// or the end) and parses it once.
func (s *mimeScanner) readHeader(p *mimePart, parentType string) {
	for {
		line, ok := s.peek()
		if !ok || s.checkStop(line) {
			break
		}
		s.advance(line)
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	p.bodyStart, p.bodyLine = s.pos, s.line
	p.header, _ = textproto.ReadHeader(bufio.NewReader(bytes.NewReader(s.buf[p.hdrStart:p.bodyStart])))
	h := gomessage.Header{Header: p.header}
	p.mediaType, p.params, _ = h.ContentType()
	p.mediaType = strings.ToLower(p.mediaType)
	if !h.Has("Content-Type") && parentType == "multipart/digest" {
		p.mediaType = "message/rfc822" // RFC 2046 section 5.1.5
	}
}

// multipart reads the preamble, the parts and the epilogue of p.
func (s *mimeScanner) multipart(p *mimePart, depth int) {
	boundary := p.params["boundary"]
	if boundary == "" {
		s.skipBody()
		return
	}
	level := len(s.levels)
	s.levels = append(s.levels, boundary)
	if _, ok := s.open[boundary]; !ok {
		s.open[boundary] = level
	}
	defer s.closeLevel(level)
	if !s.toFirstDelimiter(level) {
		return
	}
	for {
		if s.parts >= MaxMIMEParts {
			p.children = append(p.children, s.rest(level))
			return
		}
		p.children = append(p.children, s.entity(depth+1, p.mediaType))
		if !s.stopped || s.stopLevel < level {
			return // the end, or a delimiter of an outer multipart
		}
		final := s.stopFinal
		s.stopped = false
		line, _ := s.peek()
		s.advance(line)
		if final {
			break
		}
	}
	s.closeLevel(level) // the epilogue knows only the outer boundaries
	s.skipBody()
}

// toFirstDelimiter skips the preamble and the first delimiter; false when
// there is no part to read.
func (s *mimeScanner) toFirstDelimiter(level int) bool {
	for {
		line, ok := s.peek()
		if !ok {
			return false
		}
		if s.checkStop(line) {
			if s.stopLevel < level {
				return false
			}
			final := s.stopFinal
			s.stopped = false
			s.advance(line)
			if final {
				s.closeLevel(level)
				s.skipBody()
				return false
			}
			return true
		}
		s.advance(line)
	}
}

// rest is everything up to the next outer delimiter, as one opaque part:
// the parts past MaxMIMEParts.
func (s *mimeScanner) rest(level int) *mimePart {
	p := &mimePart{hdrStart: s.pos, bodyStart: s.pos, bodyLine: s.line, opaque: true}
	s.closeLevel(level)
	s.skipBody()
	s.setEnd(p)
	return p
}

// closeLevel forgets the boundary of level (and of deeper levels).
func (s *mimeScanner) closeLevel(level int) {
	for len(s.levels) > level {
		i := len(s.levels) - 1
		if s.open[s.levels[i]] == i {
			delete(s.open, s.levels[i])
		}
		s.levels = s.levels[:i]
	}
}
