package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// ServeStdio serves MCP over in/out (newline-delimited JSON-RPC) until in
// reaches EOF or ctx ends. Nothing but protocol messages is written to out:
// logs go to the server's logger.
func ServeStdio(ctx context.Context, ts *mcpkit.Server, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(ts.MCP())
	ss.SetErrorLogger(slog.NewLogLogger(ts.Logger().Handler(), slog.LevelWarn))
	err := ss.Listen(ctx, in, out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
