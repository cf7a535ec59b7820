package imap

import (
	"fmt"
	"testing"
)

// BenchmarkStructureNested: the part tree of a message of nested multiparts
// (13,000 levels is the BODYSTRUCTURE of a 1.5 MB mail of them, see
// tools.nestedMail): go test ./imap -run '^$' -bench StructureNested -benchmem
func BenchmarkStructureNested(b *testing.B) {
	for _, depth := range []int{1000, 13000} {
		bs := nested(depth)
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := structureOf(bs, nil)
				_ = p.Attachments()
				_ = hasAttachments(bs)
			}
		})
	}
}
