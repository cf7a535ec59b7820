package main

import (
	"context"
	"io"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/transport"
)

// runStdio is `email-mcp stdio`: MCP over stdin/stdout for desktop clients.
// stdout carries only protocol messages; logs go to stderr. It ends cleanly
// when stdin reaches EOF.
func runStdio(ctx context.Context, cfg *config.Config, stdin io.Reader, stdout, stderr io.Writer) int {
	log := newLogger(cfg, stderr)
	a, err := newApp(ctx, cfg, log, sandboxOptions{fallbackPorts: true, stdio: true})
	if err != nil {
		return startupFailed(err, log, stderr)
	}
	defer a.Close()
	log.Info("email-mcp serving MCP on stdio", "version", buildVersion(), "sandbox", cfg.Sandbox(), "tools", len(a.tools.ToolNames()))
	if err := transport.ServeStdio(ctx, a.tools.Server, stdin, stdout); err != nil {
		log.Error("stdio", "err", err)
		return exitFailure
	}
	return exitOK
}
