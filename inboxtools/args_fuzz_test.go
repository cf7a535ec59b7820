package inboxtools

import (
	"testing"

	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// FuzzBindArgs decodes arbitrary JSON into every argument struct of the
// inbox toolset, the waits' included (toolstest.FuzzBindArgs has the
// properties).
func FuzzBindArgs(f *testing.F) {
	toolstest.FuzzBindArgs(f, []func() any{
		func() any { return &listMessagesArgs{} }, func() any { return &inboxIDArgs{} }, func() any { return &waitArgs{} },
		func() any { return &createInboxArgs{} }, func() any { return &listInboxesArgs{} },
	})
}
