package tools

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/smtp"
)

// TestCancelledCode: a call whose client went away is CANCELLED when its
// error comes from the cancellation, and keeps its own code when the
// handler failed for another reason first.
func TestCancelledCode(t *testing.T) {
	s, err := New(Deps{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  func(ctx context.Context) error
		want Code
	}{
		{"the wait was cancelled", func(ctx context.Context) error { return fmt.Errorf("waiting: %w", ctx.Err()) }, CodeCancelled},
		{"the server refused first", func(context.Context) error { return fmt.Errorf("send: %w", smtp.ErrRejected) }, CodeSendRejected},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sp := &spec{name: "probe", handle: func(ctx context.Context, _ mcp.CallToolRequest) (any, error) { return nil, tc.err(ctx) }}
		res, err := s.wrap(sp)(ctx, mcp.CallToolRequest{})
		if err != nil || !res.IsError {
			t.Fatalf("%s: wrap() = %+v, %v; want an isError result", tc.name, res, err)
		}
		body := res.StructuredContent.(map[string]any)["error"].(map[string]any)
		if body["code"] != string(tc.want) {
			t.Errorf("%s: code = %v, want %s", tc.name, body["code"], tc.want)
		}
	}
}
