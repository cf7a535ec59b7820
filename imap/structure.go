package imap

import (
	"mime"
	"slices"
	"sort"
	"strings"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-message/charset"

	"github.com/email-mcp/email-mcp/message"
)

// Part is one node of a message's MIME structure, as BODYSTRUCTURE
// describes it.
//
// Path is the IMAP section path (RFC 3501 §6.4.5) that FetchParts and
// StreamPart take: [] for a multipart message as a whole, [1] for the body
// of a single-part message, [2 1] for the first child of the second part.
// The body of a message/rfc822 part at [3] is in Message: its children are
// [3 1], [3 2]... when it is multipart, and [3 1] is its body when it is not.
//
// The tree is bounded (MaxDepth, MaxParts): parts nested deeper, or beyond
// the first MaxParts, are left out, so that a hostile structure costs at
// most linear time and memory. A multipart at the depth bound keeps no
// children and a message/rfc822 part there no Message; Omitted on the root
// says that something was left out.
type Part struct {
	Path              []int
	Type, Subtype     string            // lower-case: "text", "plain"
	Params            map[string]string // Content-Type parameters, lower-case keys, decoded (RFC 2231, RFC 2047)
	Disposition       string            // lower-case: "attachment", "inline" or ""
	DispositionParams map[string]string // lower-case keys, decoded
	Filename          string            // disposition filename, else Content-Type name; decoded
	ID                string            // Content-ID without <>
	Encoding          string            // lower-case Content-Transfer-Encoding: "base64", "7bit"...
	Size              int64             // encoded size in bytes (0 for a multipart)
	Children          []*Part           // multipart children, in order
	Message           *Part             // message/rfc822: the structure of its body
	Omitted           bool              // root only: parts beyond MaxDepth or MaxParts were left out
}

// Bounds of the part tree structureOf builds, the same as message's for the
// bodies it parses: no real mail comes near them.
const (
	// MaxDepth is the nesting of multiparts and forwarded messages
	// followed below the message itself.
	MaxDepth = 32
	// MaxParts is the number of parts converted, in all.
	MaxParts = 1000
)

// MediaType returns "type/subtype".
func (p *Part) MediaType() string { return p.Type + "/" + p.Subtype }

// IsEmbedded reports whether the part is meant to be shown inside the body
// rather than offered as a file: it has a Content-ID (an HTML body refers
// to it as cid:) and is not marked as an attachment.
func (p *Part) IsEmbedded() bool { return embedded(p.ID, p.Disposition) }

// embedded is IsEmbedded's rule (lower-case disposition).
func embedded(id, disposition string) bool { return id != "" && disposition != "attachment" }

// offeredAsFile is Attachments' rule for a part that is not multipart
// (lower-case type and disposition): marked as an attachment, named, a
// forwarded message, or anything but text.
func offeredAsFile(typ, disposition, filename string, forwarded bool) bool {
	return disposition == "attachment" || filename != "" || forwarded || typ != "text"
}

// contentID is a Content-ID without its angle brackets.
func contentID(raw string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(raw), "<"), ">")
}

// Attachments returns, in order, the parts a mail client offers as files:
// every leaf part except the text bodies (text/* parts without a filename
// that are not marked as attachments), with each forwarded message
// (message/rfc822) as one part, not descended into. Embedded images are
// included; IsEmbedded tells them apart.
func (p *Part) Attachments() []*Part {
	var l []*Part
	p.collect(&l)
	return l
}

func (p *Part) collect(l *[]*Part) {
	switch {
	case p.Type == "multipart":
		for _, ch := range p.Children {
			ch.collect(l)
		}
	case offeredAsFile(p.Type, p.Disposition, p.Filename, p.Type == "message" && p.Message != nil):
		*l = append(*l, p)
	}
}

// HasAttachments reports whether some attachment is not embedded: what
// Summary.HasAttachments says.
func (p *Part) HasAttachments() bool {
	for _, a := range p.Attachments() {
		if !a.IsEmbedded() {
			return true
		}
	}
	return false
}

// Find returns the part at path, or nil.
func (p *Part) Find(path []int) *Part {
	if p == nil {
		return nil
	}
	if slices.Equal(p.Path, path) {
		return p
	}
	for _, ch := range p.Children {
		if f := ch.Find(path); f != nil {
			return f
		}
	}
	return p.Message.Find(path)
}

// structureOf converts the body structure of the message at root (nil for
// the message itself, the path of a message/rfc822 part for a nested one),
// within MaxDepth and MaxParts.
func structureOf(bs goimap.BodyStructure, root []int) *Part {
	var b builder
	p := b.structure(bs, slices.Clip(slices.Clone(root)), 0)
	if p != nil {
		p.Omitted = b.omitted
	}
	return p
}

// builder converts one BODYSTRUCTURE, counting parts. Each part copies its
// parent's path once (at most MaxDepth+1 numbers), so the cost is linear
// in the number of parts.
type builder struct {
	parts   int
	omitted bool
}

// child is path with n appended, in a new array: siblings never share one.
func child(path []int, n int) []int {
	return append(path[:len(path):len(path)], n)
}

func (b *builder) structure(bs goimap.BodyStructure, path []int, depth int) *Part {
	switch x := bs.(type) {
	case *goimap.BodyStructureMultiPart:
		return b.multipart(x, path, depth)
	case *goimap.BodyStructureSinglePart:
		return b.singlePart(x, child(path, 1), depth)
	default:
		return nil
	}
}

func (b *builder) multipart(mp *goimap.BodyStructureMultiPart, path []int, depth int) *Part {
	b.parts++
	p := &Part{Path: path, Type: "multipart", Subtype: strings.ToLower(mp.Subtype)}
	if mp.Extended != nil {
		p.Params = decodeParams(mp.Extended.Params)
		setDisposition(p, mp.Extended.Disposition)
	}
	if depth >= MaxDepth && len(mp.Children) > 0 {
		b.omitted = true
		return p
	}
	for i, ch := range mp.Children {
		if b.parts >= MaxParts {
			b.omitted = true
			break
		}
		switch c := ch.(type) {
		case *goimap.BodyStructureMultiPart:
			p.Children = append(p.Children, b.multipart(c, child(path, i+1), depth+1))
		case *goimap.BodyStructureSinglePart:
			p.Children = append(p.Children, b.singlePart(c, child(path, i+1), depth+1))
		}
	}
	return p
}

func (b *builder) singlePart(sp *goimap.BodyStructureSinglePart, path []int, depth int) *Part {
	b.parts++
	p := &Part{
		Path:     path,
		Type:     strings.ToLower(sp.Type),
		Subtype:  strings.ToLower(sp.Subtype),
		Params:   decodeParams(sp.Params),
		ID:       contentID(sp.ID),
		Encoding: strings.ToLower(sp.Encoding),
		Size:     int64(sp.Size),
	}
	setDisposition(p, sp.Disposition())
	p.Filename = p.DispositionParams["filename"]
	if p.Filename == "" {
		p.Filename = p.Params["name"]
	}
	if m := sp.MessageRFC822; m != nil && m.BodyStructure != nil {
		if depth >= MaxDepth || b.parts >= MaxParts {
			b.omitted = true
		} else {
			p.Message = b.structure(m.BodyStructure, path, depth+1)
		}
	}
	return p
}

func setDisposition(p *Part, d *goimap.BodyStructureDisposition) {
	if d == nil {
		return
	}
	p.Disposition = strings.ToLower(d.Value)
	p.DispositionParams = decodeParams(d.Params)
}

// wordDecoder decodes RFC 2047 encoded words in any charset go-message knows.
var wordDecoder = &mime.WordDecoder{CharsetReader: charset.Reader}

// decodeParams lower-cases the keys and decodes the values: RFC 2231
// (name*=charset'lang'%XX..., name*0*=... continuations), which servers pass on
// as sent, and RFC 2047 encoded words, which many mailers put in quotes.
// imapclient has already decoded encoded words it recognised.
func decodeParams(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	var ext []string
	for k, v := range in {
		k = strings.ToLower(k)
		if strings.Contains(k, "*") {
			ext = append(ext, k)
			continue
		}
		out[k] = decodeWords(v)
	}
	if len(ext) > 0 {
		for k, v := range decode2231(ext, in) {
			out[k] = v
		}
	}
	return out
}

// decode2231 joins and decodes the RFC 2231 parameters named in keys with
// mime.ParseMediaType, in any charset (message.ExtendedParamsToUTF8); on a
// value it cannot read, the raw keys stay.
func decode2231(keys []string, in map[string]string) map[string]string {
	sort.Strings(keys)
	raw := map[string]string{}
	for k, v := range in {
		raw[strings.ToLower(k)] = v
	}
	message.ExtendedParamsToUTF8(raw) // ParseMediaType drops other charsets
	var b strings.Builder
	b.WriteString("x/x")
	for _, k := range keys {
		v := raw[k]
		b.WriteString("; " + k + "=")
		if strings.HasSuffix(k, "*") {
			b.WriteString(v) // charset'lang'%XX: token characters only
		} else {
			b.WriteString(quoteParam(v))
		}
	}
	_, params, err := mime.ParseMediaType(b.String())
	if err != nil {
		params = make(map[string]string, len(keys))
		for _, k := range keys {
			params[k] = raw[k]
		}
	}
	return params
}

// quoteParam quotes a parameter value for mime.ParseMediaType.
func quoteParam(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// decodeWords decodes RFC 2047 encoded words; text that is not encoded, or
// does not decode, is returned as is.
func decodeWords(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		return s
	}
	return d
}

// hasAttachments is structureOf(bs, nil).HasAttachments() without building
// the tree: a search page asks it of every message (a Part tree per message
// was 5% of a search's CPU). Parameters that need decoding (RFC 2231 keys,
// RFC 2047 words), where a name could decode to nothing, take the long way.
func hasAttachments(bs goimap.BodyStructure) bool {
	var q quickWalk
	has, ok := q.walk(bs, 0, false)
	if !ok {
		return structureOf(bs, nil).HasAttachments()
	}
	return has
}

// quickAttachments answers hasAttachments, or ok=false when a parameter it
// would look at needs decoding.
func quickAttachments(bs goimap.BodyStructure) (has, ok bool) {
	var q quickWalk
	return q.walk(bs, 0, false)
}

// quickWalk visits the parts in the order builder converts them and counts
// them the same way, so that it stops at the same bounds (MaxDepth,
// MaxParts) and agrees with the Part tree.
type quickWalk struct{ parts int }

// walk answers for bs at depth; with countOnly (the inside of a forwarded
// message, which is one attachment) it only counts the parts.
func (q *quickWalk) walk(bs goimap.BodyStructure, depth int, countOnly bool) (has, ok bool) {
	switch b := bs.(type) {
	case *goimap.BodyStructureMultiPart:
		q.parts++
		if depth >= MaxDepth {
			return false, true
		}
		for _, ch := range b.Children {
			if q.parts >= MaxParts {
				break
			}
			if has, ok := q.walk(ch, depth+1, countOnly); !ok || has {
				return has, ok
			}
		}
		return false, true
	case *goimap.BodyStructureSinglePart:
		q.parts++
		forwarded := false
		if m := b.MessageRFC822; m != nil && m.BodyStructure != nil && depth < MaxDepth && q.parts < MaxParts {
			forwarded = true
			q.walk(m.BodyStructure, depth+1, true)
		}
		if countOnly {
			return false, true
		}
		return quickSinglePart(b, forwarded)
	default:
		return false, true
	}
}

// quickSinglePart answers for one single part.
func quickSinglePart(b *goimap.BodyStructureSinglePart, forwarded bool) (has, ok bool) {
	if strings.EqualFold(b.Type, "multipart") { // a multipart without children (Part.collect)
		return false, true
	}
	var disposition string
	var dparams map[string]string
	if d := b.Disposition(); d != nil {
		disposition, dparams = d.Value, d.Params
	}
	disposition, typ := strings.ToLower(disposition), strings.ToLower(b.Type)
	filename, ok := plainParam(dparams, "filename")
	if ok && filename == "" {
		filename, ok = plainParam(b.Params, "name")
	}
	if !ok {
		return false, false
	}
	forwarded = forwarded && typ == "message"
	return offeredAsFile(typ, disposition, filename, forwarded) && !embedded(contentID(b.ID), disposition), true
}

// plainParam returns the parameter name (any case) of params when it needs
// no decoding; ok=false when it is split or encoded (RFC 2231, RFC 2047).
func plainParam(params map[string]string, name string) (v string, ok bool) {
	for k, val := range params {
		switch {
		case len(k) > len(name) && k[len(name)] == '*' && strings.EqualFold(k[:len(name)], name):
			return "", false
		case strings.EqualFold(k, name):
			if strings.Contains(val, "=?") {
				return "", false
			}
			v = val
		}
	}
	return v, true
}
