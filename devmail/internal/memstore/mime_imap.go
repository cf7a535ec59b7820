package memstore

// BODYSTRUCTURE, body sections and SEARCH TEXT/BODY over the parts that
// parseMIME found, with the answers of upstream's imapserver helpers for
// every message within the bounds (mime_test.go compares them).

import (
	"bytes"
	"io"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	gomessage "github.com/emersion/go-message"
)

// bodyStructure is the BODYSTRUCTURE of p.
func (p *mimePart) bodyStructure(buf []byte) imap.BodyStructure {
	h := gomessage.Header{Header: p.header}
	if p.isMultipart() {
		_, subType, _ := strings.Cut(p.mediaType, "/")
		bs := &imap.BodyStructureMultiPart{Subtype: subType}
		for _, c := range p.children {
			bs.Children = append(bs.Children, c.bodyStructure(buf))
		}
		bs.Extended = &imap.BodyStructureMultiPartExt{
			Params:      p.params,
			Disposition: contentDisposition(h),
			Language:    contentLanguage(h),
			Location:    h.Get("Content-Location"),
		}
		return bs
	}
	mediaType, params := p.mediaType, p.params
	if p.opaque {
		mediaType, params = "application/octet-stream", nil
	}
	primaryType, subType, _ := strings.Cut(mediaType, "/")
	bs := &imap.BodyStructureSinglePart{
		Type:        primaryType,
		Subtype:     subType,
		Params:      params,
		ID:          h.Get("Content-Id"),
		Description: h.Get("Content-Description"),
		Encoding:    h.Get("Content-Transfer-Encoding"),
		Size:        uint32(p.end - p.bodyStart),
	}
	if p.inner != nil {
		bs.MessageRFC822 = &imap.BodyStructureMessageRFC822{
			Envelope:      imapserver.ExtractEnvelope(p.inner.header),
			BodyStructure: p.inner.bodyStructure(buf),
			NumLines:      p.numLines(),
		}
	}
	if primaryType == "text" {
		bs.Text = &imap.BodyStructureText{NumLines: p.numLines()}
	}
	bs.Extended = &imap.BodyStructureSinglePartExt{
		Disposition: contentDisposition(h),
		Language:    contentLanguage(h),
		Location:    h.Get("Content-Location"),
	}
	return bs
}

func contentDisposition(h gomessage.Header) *imap.BodyStructureDisposition {
	disp, params, _ := h.ContentDisposition()
	if disp == "" {
		return nil
	}
	return &imap.BodyStructureDisposition{Value: disp, Params: params}
}

func contentLanguage(h gomessage.Header) []string {
	v := h.Get("Content-Language")
	if v == "" {
		return nil
	}
	l := strings.Split(v, ",")
	for i, lang := range l {
		l[i] = strings.TrimSpace(lang)
	}
	return l
}

// opened is the message inside a message/rfc822 part, else p itself.
func (p *mimePart) opened() *mimePart {
	if p.inner != nil {
		return p.inner
	}
	return p
}

// find is the part a section path names, as upstream's findMessagePart
// reads it; nil when there is none.
func (p *mimePart) find(path []int) *mimePart {
	cur := p
	if !cur.isMultipart() && len(path) > 0 && path[0] == 1 {
		path = path[1:] // part 1 of a single-part message is its body
	}
	for _, n := range path {
		cur = cur.opened()
		if !cur.isMultipart() {
			if n != 1 {
				return nil
			}
			continue
		}
		if n < 1 || n > len(cur.children) {
			return nil
		}
		cur = cur.children[n-1]
	}
	return cur
}

// bytesOf is the entity's header block and body.
func (p *mimePart) bytesOf(buf []byte) []byte { return buf[p.hdrStart:p.end] }

// bodySection is BODY[section] for a section with a part path (without
// one, upstream's helper reads only the top level and is used as is).
func bodySection(buf []byte, root *mimePart, item *imap.FetchItemBodySection) []byte {
	p := root.find(item.Part)
	if p == nil {
		return nil
	}
	top := &imap.FetchItemBodySection{HeaderFields: item.HeaderFields, HeaderFieldsNot: item.HeaderFieldsNot, Partial: item.Partial}
	switch item.Specifier {
	case imap.PartSpecifierNone:
		return partial(buf[p.bodyStart:p.end], item.Partial)
	case imap.PartSpecifierMIME:
		top.Specifier = imap.PartSpecifierHeader
		return imapserver.ExtractBodySection(bytes.NewReader(p.bytesOf(buf)), top)
	default: // HEADER, HEADER.FIELDS (NOT), TEXT of the message inside
		top.Specifier = item.Specifier
		return imapserver.ExtractBodySection(bytes.NewReader(p.opened().bytesOf(buf)), top)
	}
}

// binarySection is BINARY[section] for a section with a part path: the
// part's body with its transfer encoding undone.
func binarySection(buf []byte, root *mimePart, part []int, sp *imap.SectionPartial) []byte {
	p := root.find(part)
	if p == nil {
		return nil
	}
	e, err := gomessage.New(gomessage.Header{Header: p.header}, bytes.NewReader(buf[p.bodyStart:p.end]))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(e.Body)
	if err != nil {
		return nil
	}
	return partial(b, sp)
}

func partial(b []byte, p *imap.SectionPartial) []byte {
	if p == nil {
		return b
	}
	if p.Offset > int64(len(b)) {
		return nil
	}
	return b[p.Offset:min(p.Offset+p.Size, int64(len(b)))]
}

// matchText is SEARCH TEXT (includeHeader) or BODY over the parts: the
// header fields of every part, the decoded body of every text/* and
// message/* leaf, and the raw bytes of an opaque part (so mail nested past
// the bounds is still found).
func matchText(buf []byte, p *mimePart, pattern string, includeHeader bool) bool {
	if pattern == "" {
		return true
	}
	if p.opaque {
		return bytes.Contains(bytes.ToLower(buf[p.hdrStart:p.end]), bytes.ToLower([]byte(pattern)))
	}
	h := gomessage.Header{Header: p.header}
	if includeHeader && matchHeaderFields(h.Fields(), pattern) {
		return true
	}
	if p.isMultipart() {
		for _, c := range p.children {
			if matchText(buf, c, pattern, includeHeader) {
				return true
			}
		}
		return false
	}
	if !strings.HasPrefix(p.mediaType, "text/") && !strings.HasPrefix(p.mediaType, "message/") {
		return false
	}
	e, err := gomessage.New(h, bytes.NewReader(buf[p.bodyStart:p.end]))
	if err != nil && e == nil {
		return false
	}
	body, err := io.ReadAll(e.Body)
	if err != nil {
		return false
	}
	return bytes.Contains(bytes.ToLower(body), bytes.ToLower([]byte(pattern)))
}
