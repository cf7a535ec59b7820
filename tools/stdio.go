package tools

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP over in/out (newline-delimited JSON-RPC) until in
// reaches EOF or ctx ends. Nothing but protocol messages is written to out:
// logs go to the server's logger.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelWarn))
	err := ss.Listen(ctx, in, out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
