package imap

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestHasAttachmentsQuick: the quick answer of a search page agrees with the
// Part tree's on random structures (types, dispositions, names plain,
// encoded, split or empty, Content-IDs, forwarded messages, nesting).
func TestHasAttachmentsQuick(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(l ...string) string { return l[rng.IntN(len(l))] }
	params := func(key string) map[string]string {
		switch rng.IntN(7) {
		case 0:
			return nil
		case 1:
			return map[string]string{pick(key, strings.ToUpper(key)): pick("a.pdf", "")}
		case 2:
			return map[string]string{key + "*": "utf-8''" + pick("r%C3%A9sum%C3%A9.pdf", "", "%ZZ")}
		case 3:
			return map[string]string{key: pick("=?utf-8?q?caf=C3=A9?=.txt", "=?utf-8?q??=", "=?bogus?q?x?=")}
		case 4:
			return map[string]string{key + "*0*": "utf-8''a", key + "*1": pick("b.pdf", "")}
		default:
			return map[string]string{"charset": "utf-8"}
		}
	}
	var gen func(depth int) goimap.BodyStructure
	gen = func(depth int) goimap.BodyStructure {
		if depth < 3 && rng.IntN(3) == 0 {
			mp := &goimap.BodyStructureMultiPart{Subtype: pick("mixed", "related", "alternative")}
			for range rng.IntN(4) {
				mp.Children = append(mp.Children, gen(depth+1))
			}
			return mp
		}
		typ := pick("text", "TEXT", "image", "application", "message", "multipart")
		sp := &goimap.BodyStructureSinglePart{Type: typ, Subtype: pick("plain", "html", "png", "rfc822"),
			Params: params("name"), ID: pick("", "", "<img1@x>", "<>", " "), Encoding: "base64", Size: 10}
		if rng.IntN(2) == 0 {
			sp.Extended = &goimap.BodyStructureSinglePartExt{}
			if rng.IntN(4) != 0 {
				sp.Extended.Disposition = &goimap.BodyStructureDisposition{Value: pick("attachment", "ATTACHMENT", "inline", ""), Params: params("filename")}
			}
		}
		if typ == "message" && rng.IntN(2) == 0 && depth < 3 {
			sp.MessageRFC822 = &goimap.BodyStructureMessageRFC822{BodyStructure: gen(depth + 1)}
		}
		return sp
	}
	quick, slow := 0, 0
	for i := range 20000 {
		bs := gen(0)
		want := structureOf(bs, nil).HasAttachments()
		if got := hasAttachments(bs); got != want {
			t.Fatalf("case %d: hasAttachments = %v, the Part tree says %v", i, got, want)
		}
		if _, ok := quickAttachments(bs); ok {
			quick++
		} else {
			slow++
		}
	}
	if quick < 10000 || slow < 1000 {
		t.Errorf("quick %d, slow %d of 20000: want both ways well covered", quick, slow)
	}
}

// BenchmarkHotHasAttachments: has_attachments of a search page of 50
// (mixed mail with an attachment, alternative text/HTML, related HTML with
// an embedded image), the Part tree's way and the quick way.
func BenchmarkHotHasAttachments(b *testing.B) {
	alt := &goimap.BodyStructureMultiPart{Subtype: "alternative", Children: []goimap.BodyStructure{
		single("text", "plain", "", nil), single("text", "html", "", nil)}}
	img := single("image", "png", "inline", map[string]string{"filename": "logo.png"})
	img.ID = "<logo@x>"
	page := []goimap.BodyStructure{
		&goimap.BodyStructureMultiPart{Subtype: "mixed", Children: []goimap.BodyStructure{alt,
			single("application", "pdf", "attachment", map[string]string{"filename": "invoice.pdf"})}},
		alt,
		&goimap.BodyStructureMultiPart{Subtype: "related", Children: []goimap.BodyStructure{single("text", "html", "", nil), img}},
	}
	for _, bc := range []struct {
		name string
		f    func(goimap.BodyStructure) bool
	}{
		{"part-tree", func(bs goimap.BodyStructure) bool { return structureOf(bs, nil).HasAttachments() }},
		{"quick", hasAttachments},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range 50 {
					bc.f(page[i%len(page)])
				}
			}
		})
	}
}

// RFC 2231 §4: name*=charset'lang'%XX with any registered charset. A value
// in a charset other than UTF-8/US-ASCII must be decoded, or at worst kept
// raw (decode2231's own doc: "on a value it cannot read, the raw keys
// stay"); it must not vanish.
func TestDecodeParamsNonUTF8(t *testing.T) {
	got := decodeParams(map[string]string{"filename*": "iso-8859-1''Rechnung%20M%E4rz.pdf"})
	if got["filename"] != "Rechnung März.pdf" {
		t.Errorf("decodeParams(filename*=iso-8859-1''Rechnung%%20M%%E4rz.pdf) = %q, want filename \"Rechnung März.pdf\"", got)
	}
}
