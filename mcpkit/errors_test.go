package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestClassifyHidesCause(t *testing.T) {
	err := fmt.Errorf("login to imap.secret-host.example:993 as bob: %w", errLogin)
	te := Classify(err, []Sentinel{{Err: errLogin, Code: CodeAuthFailed}})
	res := errorResult(te)
	text := res.Content[0].(mcp.TextContent).Text
	if strings.Contains(text, "secret-host") || strings.Contains(text, "bob") {
		t.Errorf("error text %q leaks the cause", text)
	}
	if !strings.HasPrefix(text, "AUTH_FAILED: ") || !res.IsError {
		t.Errorf("errorResult = %q isError=%v, want AUTH_FAILED: prefix", text, res.IsError)
	}
}

func TestEveryCodeHasInfo(t *testing.T) {
	codes := []Code{CodeInvalidArgument, CodeAuthFailed, CodeConnectionFailed, CodeConnectionTimeout, CodeTLSFailed,
		CodeFolderNotFound, CodeMessageNotFound, CodeAttachmentNotFound, CodeAttachmentTooLarge, CodePathOutsideWorkspace,
		CodeSendRejected, CodeWaitTimeout, CodeRateLimited, CodeReadOnly, CodeInternal, CodeRecipientNotAllowed, CodeCancelled,
		CodeInboxNotFound, CodeAccountNotFound}
	for _, c := range codes {
		if codeInfo[c].message == "" {
			t.Errorf("code %s has no message", c)
		}
	}
	if len(codeInfo) != len(codes) {
		t.Errorf("codeInfo has %d codes, want %d", len(codeInfo), len(codes))
	}
}

// errLogin and errRefused stand for an adapter's sentinels.
var errLogin = errors.New("login refused")

// errRefused stands for an adapter's sentinel in TestCancelledCode.
var errRefused = errors.New("refused")

// TestCancelledCode: a call whose client went away is CANCELLED when its
// error comes from the cancellation, and keeps its own code when the
// handler failed for another reason first.
func TestCancelledCode(t *testing.T) {
	s, err := New([]Account{{Name: DefaultAccount}}, Options{Logger: slog.New(slog.DiscardHandler), Classify: func(err error) *Error {
		return Classify(err, []Sentinel{{Err: errRefused, Code: CodeSendRejected}})
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  func(ctx context.Context) error
		want Code
	}{
		{"the wait was cancelled", func(ctx context.Context) error { return fmt.Errorf("waiting: %w", ctx.Err()) }, CodeCancelled},
		{"the server refused first", func(context.Context) error { return fmt.Errorf("send: %w", errRefused) }, CodeSendRejected},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sp := &Spec{Name: "probe", Handle: func(ctx context.Context, _ mcp.CallToolRequest) (any, error) { return nil, tc.err(ctx) }}
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
