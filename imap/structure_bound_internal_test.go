package imap

import (
	"runtime"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

// nested is a BODYSTRUCTURE of depth multiparts, one inside the other, each
// with a text part and an attachment beside the next level.
func nested(depth int) goimap.BodyStructure {
	var bs goimap.BodyStructure = single("text", "plain", "", nil)
	for range depth {
		bs = &goimap.BodyStructureMultiPart{Subtype: "mixed", Children: []goimap.BodyStructure{
			single("text", "plain", "", nil), bs, single("application", "pdf", "attachment", map[string]string{"filename": "a.pdf"})}}
	}
	return bs
}

// structureCost returns the bytes allocated to convert bs, list its
// attachments, answer HasAttachments and find a part.
func structureCost(bs goimap.BodyStructure) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := structureOf(bs, nil)
	_ = p.Attachments()
	_ = p.HasAttachments()
	_ = hasAttachments(bs)
	_ = p.Find([]int{2, 2, 2, 2, 1})
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStructureCostLinear: the memory the structure code allocates grows at
// most linearly with the number of parts, however deep they nest (it copied
// the part path at every level: 1.8 GB for a 1.5 MB mail).
func TestStructureCostLinear(t *testing.T) {
	wide := func(n int) goimap.BodyStructure {
		mp := &goimap.BodyStructureMultiPart{Subtype: "mixed"}
		for range n {
			mp.Children = append(mp.Children, nested(2))
		}
		return mp
	}
	for _, tc := range []struct {
		name string
		gen  func(int) goimap.BodyStructure
		n    int // the big case is 8n
	}{{"nested", nested, 500}, {"wide", wide, 40}} {
		small, big := structureCost(tc.gen(tc.n)), structureCost(tc.gen(8*tc.n))
		if big > 10*small {
			t.Errorf("%s: structure of %d allocated %d bytes, of %d: %d (x%.1f); want at most x10 (linear is x8)",
				tc.name, 8*tc.n, big, tc.n, small, float64(big)/float64(small))
		}
		t.Logf("%s: allocated %d bytes for %d, %d bytes for %d", tc.name, small, tc.n, big, 8*tc.n)
	}
}

// depthOf is the nesting of p's tree: 0 for a leaf.
func depthOf(p *Part) int {
	if p == nil {
		return -1
	}
	d := 0
	for _, ch := range append(slices.Clone(p.Children), p.Message) {
		d = max(d, depthOf(ch)+1)
	}
	return d
}

func countParts(p *Part) int {
	if p == nil {
		return 0
	}
	n := 1 + countParts(p.Message)
	for _, ch := range p.Children {
		n += countParts(ch)
	}
	return n
}

// TestStructureBounds: beyond MaxDepth and MaxParts the tree is cut (the
// root says Omitted), Find answers nil there, and the quick answer of a
// search page agrees with the tree at the bounds.
func TestStructureBounds(t *testing.T) {
	deepAttachment := func(depth int) goimap.BodyStructure { // an attachment only at the bottom
		var bs goimap.BodyStructure = single("application", "pdf", "attachment", nil)
		for range depth {
			bs = &goimap.BodyStructureMultiPart{Subtype: "mixed", Children: []goimap.BodyStructure{single("text", "plain", "", nil), bs}}
		}
		return bs
	}
	wide := func(n int) goimap.BodyStructure {
		mp := &goimap.BodyStructureMultiPart{Subtype: "mixed"}
		for range n {
			mp.Children = append(mp.Children, single("text", "plain", "", nil))
		}
		mp.Children = append(mp.Children, single("application", "pdf", "attachment", nil))
		return mp
	}
	forwardedThen := func(inner int) goimap.BodyStructure { // a forwarded message of inner parts, then an attachment
		fwd := single("message", "rfc822", "", nil)
		fwd.MessageRFC822 = &goimap.BodyStructureMessageRFC822{BodyStructure: wide(inner)}
		return &goimap.BodyStructureMultiPart{Subtype: "mixed", Children: []goimap.BodyStructure{
			single("text", "plain", "", nil), fwd, single("application", "zip", "attachment", nil)}}
	}
	tests := []struct {
		name    string
		bs      goimap.BodyStructure
		omitted bool
		has     bool
		atts    int
	}{
		{"deep within the bound", deepAttachment(MaxDepth), false, true, 1},
		{"deep beyond the bound", deepAttachment(MaxDepth + 1), true, false, 0},
		{"very deep", deepAttachment(5000), true, false, 0},
		{"wide within the bound", wide(MaxParts - 2), false, true, 1},
		{"wide beyond the bound", wide(MaxParts), true, false, 0},
		{"forwarded parts count", forwardedThen(MaxParts), true, true, 1},
		{"forwarded within the bound", forwardedThen(MaxParts - 10), false, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := structureOf(tt.bs, nil)
			if p.Omitted != tt.omitted || p.HasAttachments() != tt.has || len(p.Attachments()) != tt.atts {
				t.Errorf("Omitted, HasAttachments(), %d attachments = %v, %v; want %v, %v, %d",
					len(p.Attachments()), p.Omitted, p.HasAttachments(), tt.omitted, tt.has, tt.atts)
			}
			if d, n := depthOf(p), countParts(p); d > MaxDepth+1 || n > MaxParts {
				t.Errorf("tree of depth %d with %d parts, want at most %d and %d", d, n, MaxDepth+1, MaxParts)
			}
			if got := hasAttachments(tt.bs); got != tt.has {
				t.Errorf("hasAttachments() = %v, the tree says %v", got, tt.has)
			}
		})
	}
}
