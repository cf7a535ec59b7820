package imap

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

func TestDecodeParams(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"none", nil, nil},
		{"plain, keys lower-cased", map[string]string{"Name": "a.pdf", "CHARSET": "utf-8"}, map[string]string{"name": "a.pdf", "charset": "utf-8"}},
		{"RFC 2231", map[string]string{"filename*": "utf-8''Rechnung%20M%C3%A4rz.pdf"}, map[string]string{"filename": "Rechnung März.pdf"}},
		{"RFC 2231 continuations", map[string]string{"filename*0*": "utf-8''R%C3%A9sum", "filename*1": "e final.pdf", "size": "12"},
			map[string]string{"filename": "Résume final.pdf", "size": "12"}},
		{"RFC 2047 in quotes", map[string]string{"name": "=?utf-8?q?caf=C3=A9?=.txt"}, map[string]string{"name": "café.txt"}},
		{"RFC 2047 in Latin-1", map[string]string{"name": "=?iso-8859-1?q?Gr=FC=DFe?=.txt"}, map[string]string{"name": "Grüße.txt"}},
		{"broken encoded word stays", map[string]string{"name": "=?bogus?q?x?=.txt"}, map[string]string{"name": "=?bogus?q?x?=.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeParams(tt.in); !maps.Equal(got, tt.want) {
				t.Errorf("decodeParams(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func paths(p *Part) []string {
	var l []string
	var walk func(*Part)
	walk = func(p *Part) {
		if p == nil {
			return
		}
		l = append(l, fmt.Sprintf("%v %s", p.Path, p.MediaType()))
		for _, ch := range p.Children {
			walk(ch)
		}
		walk(p.Message)
	}
	walk(p)
	return l
}

func single(typ, sub string, disp string, params map[string]string) *goimap.BodyStructureSinglePart {
	bs := &goimap.BodyStructureSinglePart{Type: typ, Subtype: sub, Encoding: "base64", Size: 10}
	if disp != "" {
		bs.Extended = &goimap.BodyStructureSinglePartExt{Disposition: &goimap.BodyStructureDisposition{Value: disp, Params: params}}
	}
	return bs
}

func TestStructurePaths(t *testing.T) {
	inner := single("TEXT", "Plain", "", nil)
	fwd := single("message", "rfc822", "", nil)
	fwd.MessageRFC822 = &goimap.BodyStructureMessageRFC822{BodyStructure: inner}
	tests := []struct {
		name string
		bs   goimap.BodyStructure
		want []string
	}{
		{"single part", single("text", "plain", "", nil), []string{"[1] text/plain"}},
		{"message/rfc822 alone", fwd, []string{"[1] message/rfc822", "[1 1] text/plain"}},
		{"nested single-part message", &goimap.BodyStructureMultiPart{Subtype: "MIXED", Children: []goimap.BodyStructure{
			single("text", "plain", "", nil), &goimap.BodyStructureMultiPart{Subtype: "related", Children: []goimap.BodyStructure{
				single("text", "html", "", nil), single("image", "png", "inline", nil)}}, fwd}},
			[]string{"[] multipart/mixed", "[1] text/plain", "[2] multipart/related", "[2 1] text/html", "[2 2] image/png",
				"[3] message/rfc822", "[3 1] text/plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := paths(structureOf(tt.bs, nil)); !slices.Equal(got, tt.want) {
				t.Errorf("structureOf() paths = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAttachmentRules(t *testing.T) {
	embedded := single("image", "png", "inline", nil)
	embedded.ID = "<logo@x>"
	tests := []struct {
		name string
		part *goimap.BodyStructureSinglePart
		att  bool // listed by Attachments
		has  bool // counts for HasAttachments
	}{
		{"body text", single("text", "plain", "", nil), false, false},
		{"inline body text", single("text", "html", "inline", nil), false, false},
		{"calendar without a name", single("text", "calendar", "", nil), false, false},
		{"text marked attachment", single("text", "plain", "attachment", nil), true, true},
		{"text with a filename", single("text", "csv", "inline", map[string]string{"filename": "a.csv"}), true, true},
		{"pdf without disposition", single("application", "pdf", "", nil), true, true},
		{"embedded image", embedded, true, false},
		{"inline image without Content-ID", single("image", "jpeg", "inline", nil), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := structureOf(&goimap.BodyStructureMultiPart{Subtype: "mixed", Children: []goimap.BodyStructure{
				single("text", "plain", "", nil), tt.part}}, nil)
			if got := len(msg.Attachments()) == 1; got != tt.att {
				t.Errorf("Attachments() = %d parts, want listed %v", len(msg.Attachments()), tt.att)
			}
			if got := msg.HasAttachments(); got != tt.has {
				t.Errorf("HasAttachments() = %v, want %v", got, tt.has)
			}
		})
	}
}
