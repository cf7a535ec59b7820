package mcpkit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ProgressOf sends a call's progress as notifications/progress to the
// client that made it, when it asked for them with a progress token; nil
// otherwise (no token, or no session to send on).
func ProgressOf(ctx context.Context, req mcp.CallToolRequest) func(ctx context.Context, progress, total int, message string) {
	srv := server.ServerFromContext(ctx)
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || srv == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	return func(ctx context.Context, progress, total int, message string) {
		_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
			"progressToken": token,
			"progress":      progress,
			"total":         total,
			"message":       message,
		})
	}
}
