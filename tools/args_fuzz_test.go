package tools

import (
	"testing"

	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// argTypes makes a fresh value of every named argument struct (the inbox
// toolset's are inboxtools').
var argTypes = []func() any{
	func() any { return &searchArgs{} }, func() any { return &readArgs{} }, func() any { return &markArgs{} },
	func() any { return &moveArgs{} }, func() any { return &sendArgs{} }, func() any { return &replyArgs{} },
	func() any { return &downloadArgs{} }, func() any { return &sendAttachmentsArgs{} }, func() any { return &listFoldersArgs{} },
}

// FuzzBindArgs decodes arbitrary JSON into every argument struct of the
// mail tools (toolstest.FuzzBindArgs has the properties).
func FuzzBindArgs(f *testing.F) { toolstest.FuzzBindArgs(f, argTypes) }
