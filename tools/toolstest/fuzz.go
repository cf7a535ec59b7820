package toolstest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// FuzzBindArgs decodes arbitrary JSON into every argument struct that
// argTypes makes (a fresh value each). Properties: no panic; a failure is
// INVALID_ARGUMENT with a message of bounded length; a success holds no
// string over its limit. The fuzz tests of tools and inboxtools run it over
// their argument structs.
func FuzzBindArgs(f *testing.F, argTypes []func() any) {
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
		err := mcpkit.BindArgs(req, dst)
		if err != nil {
			if err.Code != mcpkit.CodeInvalidArgument || len(err.Message) > 300 {
				t.Fatalf("BindArgs(%q) = %v, want a short INVALID_ARGUMENT", raw, err)
			}
			return
		}
		if lerr := mcpkit.CheckLengths(dst); lerr != nil {
			t.Fatalf("BindArgs(%q) accepted what CheckLengths refuses: %v", raw, lerr)
		}
	})
}
