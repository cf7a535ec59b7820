package tools

import (
	"encoding/json"
	"testing"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// BenchmarkHotCleanResult: the cleaning pass over a search page of 50
// (accents, no hidden characters), beside the json.Marshal it follows:
// go test ./tools -run '^$' -bench HotCleanResult -benchmem
func BenchmarkHotCleanResult(b *testing.B) {
	page := toolstest.BenchPage(50)
	res := &SearchResult{Folder: page.Folder, UIDValidity: page.UIDValidity, Total: page.Total}
	for _, m := range page.Messages {
		res.Messages = append(res.Messages, summary(page.UIDValidity, m))
	}
	text, _ := json.Marshal(res)
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(res)
		}
	})
	b.Run("clean", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			mcpkit.CleanResult(res, text)
		}
	})
}
