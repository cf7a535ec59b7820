package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// argTypes makes a fresh value of every named argument struct.
var argTypes = []func() any{
	func() any { return &searchArgs{} }, func() any { return &readArgs{} }, func() any { return &markArgs{} },
	func() any { return &moveArgs{} }, func() any { return &sendArgs{} }, func() any { return &replyArgs{} },
	func() any { return &downloadArgs{} }, func() any { return &sendAttachmentsArgs{} }, func() any { return &listFoldersArgs{} },
	func() any { return &listMessagesArgs{} }, func() any { return &inboxIDArgs{} }, func() any { return &waitArgs{} },
}

// FuzzBindArgs decodes arbitrary JSON into every argument struct (the wait
// tools' included). Properties: no panic; a failure is INVALID_ARGUMENT with
// a message of bounded length; a success holds no string over its limit.
func FuzzBindArgs(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"uid":"msg_1_2","folder":"INBOX"}`, `{"to":"a@b.c, d@e.f"}`,
		`{"timeout":0.5,"since":"1700000000"}`, `{"uids":[1,"2",3.0]}`, `{"limit":1e9}`, `{"x":1}`, `[1]`, `"s"`,
		`{"` + strings.Repeat("x", 400) + `":1}`, `{"folder":"` + strings.Repeat("y", 2000) + `"}`} {
		for i := range argTypes {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		var req mcp.CallToolRequest
		req.Params.RawArguments = json.RawMessage(raw)
		dst := argTypes[int(which)%len(argTypes)]()
		err := bindArgs(req, dst)
		if err != nil {
			if err.Code != CodeInvalidArgument || len(err.Message) > 300 {
				t.Fatalf("bindArgs(%q) = %v, want a short INVALID_ARGUMENT", raw, err)
			}
			return
		}
		if lerr := mcpkit.CheckLengths(dst); lerr != nil {
			t.Fatalf("bindArgs(%q) accepted what CheckLengths refuses: %v", raw, lerr)
		}
	})
}
