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
}

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
// the message itself, the path of a message/rfc822 part for a nested one).
func structureOf(bs goimap.BodyStructure, root []int) *Part {
	switch b := bs.(type) {
	case *goimap.BodyStructureMultiPart:
		return multipartOf(b, slices.Clone(root))
	case *goimap.BodyStructureSinglePart:
		return singlePartOf(b, append(slices.Clone(root), 1))
	default:
		return nil
	}
}

func multipartOf(b *goimap.BodyStructureMultiPart, path []int) *Part {
	p := &Part{Path: path, Type: "multipart", Subtype: strings.ToLower(b.Subtype)}
	if b.Extended != nil {
		p.Params = decodeParams(b.Extended.Params)
		setDisposition(p, b.Extended.Disposition)
	}
	for i, ch := range b.Children {
		cp := append(slices.Clone(path), i+1)
		switch c := ch.(type) {
		case *goimap.BodyStructureMultiPart:
			p.Children = append(p.Children, multipartOf(c, cp))
		case *goimap.BodyStructureSinglePart:
			p.Children = append(p.Children, singlePartOf(c, cp))
		}
	}
	return p
}

func singlePartOf(b *goimap.BodyStructureSinglePart, path []int) *Part {
	p := &Part{
		Path:     path,
		Type:     strings.ToLower(b.Type),
		Subtype:  strings.ToLower(b.Subtype),
		Params:   decodeParams(b.Params),
		ID:       contentID(b.ID),
		Encoding: strings.ToLower(b.Encoding),
		Size:     int64(b.Size),
	}
	setDisposition(p, b.Disposition())
	p.Filename = p.DispositionParams["filename"]
	if p.Filename == "" {
		p.Filename = p.Params["name"]
	}
	if m := b.MessageRFC822; m != nil && m.BodyStructure != nil {
		p.Message = structureOf(m.BodyStructure, path)
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
	has, ok := quickAttachments(bs)
	if !ok {
		return structureOf(bs, nil).HasAttachments()
	}
	return has
}

// quickAttachments answers hasAttachments, or ok=false when a parameter it
// would look at needs decoding.
func quickAttachments(bs goimap.BodyStructure) (has, ok bool) {
	switch b := bs.(type) {
	case *goimap.BodyStructureMultiPart:
		for _, ch := range b.Children {
			if has, ok := quickAttachments(ch); !ok || has {
				return has, ok
			}
		}
		return false, true
	case *goimap.BodyStructureSinglePart:
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
		forwarded := typ == "message" && b.MessageRFC822 != nil && b.MessageRFC822.BodyStructure != nil
		return offeredAsFile(typ, disposition, filename, forwarded) && !embedded(contentID(b.ID), disposition), true
	default:
		return false, true
	}
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
