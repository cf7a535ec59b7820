package mcpkit

import (
	"context"
	"encoding/json"
	"github.com/email-mcp/email-mcp/message"
	"log/slog"
)

// The audit log: one line (message "audit", component=audit) for every call
// of a tool that changes something — a mailbox, the outside world (sending)
// or the attachments workspace — whatever its outcome. It records who (the
// API key's id), what (tool, folders, uids, how many recipients and
// attachments, the inbox) and the result (ok or the error code, the new
// Message-ID or uid). It never records subjects, bodies, addresses, file
// contents or secrets: those are the mail's, not the operator's.

// audited reports whether a call of sp goes to the audit log: tools that are
// not read-only, and read_email only when it marks the mail read.
func audited(sp *Spec, args map[string]any) bool {
	if sp.ReadOnly {
		return false
	}
	if sp.AuditIf != "" {
		on, _ := args[sp.AuditIf].(bool)
		return on
	}
	return true
}

// auditResult holds the result fields the audit line repeats.
type auditResult struct {
	MessageID string          `json:"message_id"`
	NewUID    json.RawMessage `json:"new_uid"`
	Accepted  []string        `json:"accepted"`
	Rejected  []string        `json:"rejected"`
	FilePath  string          `json:"file_path"`
	InboxID   string          `json:"inbox_id"`
	Replayed  bool            `json:"replayed"`  // an idempotency_key's first result: nothing was sent
	Permanent bool            `json:"permanent"` // delete_email: expunged, not moved to Trash
	DryRun    bool            `json:"dry_run"`   // delete_email: nothing changed
	DraftID   string          `json:"draft_id"`
}

// audit writes the audit line of one call. resultJSON is the result's JSON
// (nil on failure); te the failure (nil on success).
func (s *Server) audit(ctx context.Context, sp *Spec, args map[string]any, resultJSON []byte, te *Error) {
	attrs := []slog.Attr{slog.String("component", "audit"), slog.String("tool", sp.Name)}
	if id := s.callerID(ctx); id != "" {
		attrs = append(attrs, slog.String("key_id", id))
	}
	for _, name := range append([]string{"folder", "from_folder", "to_folder", "inbox_id"}, sp.FolderArgs...) {
		if v, ok := args[name].(string); ok && v != "" {
			attrs = append(attrs, slog.String(name, message.Truncate(v, maxAuditString)))
		}
	}
	if v, ok := args["uid"]; ok {
		attrs = append(attrs, slog.Any("uid", clipAny(v)))
	}
	if v, ok := args["draft_id"]; ok {
		attrs = append(attrs, slog.Any("draft_id", clipAny(v)))
	}
	if v, ok := args["uids"].([]any); ok {
		attrs = append(attrs, slog.Int("uids", len(v)))
	}
	if n := countList(args["to"]) + countList(args["cc"]) + countList(args["bcc"]); n > 0 && sp.FolderArgs == nil {
		attrs = append(attrs, slog.Int("recipients", n))
	}
	if n := countList(args["attachment_paths"]); n > 0 {
		attrs = append(attrs, slog.Int("attachments", n))
	}
	if te != nil {
		attrs = append(attrs, slog.String("result", string(te.Code)))
		s.log.LogAttrs(ctx, slog.LevelInfo, "audit", attrs...)
		return
	}
	attrs = append(attrs, slog.String("result", "ok"))
	var r auditResult
	if json.Unmarshal(resultJSON, &r) == nil {
		attrs = appendResult(attrs, r)
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "audit", attrs...)
}

// appendResult adds the result fields that are set.
func appendResult(attrs []slog.Attr, r auditResult) []slog.Attr {
	if r.MessageID != "" {
		attrs = append(attrs, slog.String("message_id", message.Truncate(r.MessageID, maxAuditString)))
	}
	if len(r.NewUID) > 0 && string(r.NewUID) != "null" {
		attrs = append(attrs, slog.String("new_uid", message.Truncate(string(r.NewUID), maxAuditString)))
	}
	if r.Accepted != nil || r.Rejected != nil {
		attrs = append(attrs, slog.Int("accepted", len(r.Accepted)), slog.Int("rejected", len(r.Rejected)))
	}
	if r.FilePath != "" {
		attrs = append(attrs, slog.String("file_path", message.Truncate(r.FilePath, maxAuditString)))
	}
	if r.InboxID != "" {
		attrs = append(attrs, slog.String("inbox_id", message.Truncate(r.InboxID, maxAuditString)))
	}
	if r.DraftID != "" {
		attrs = append(attrs, slog.String("new_draft_id", message.Truncate(r.DraftID, maxAuditString)))
	}
	if r.Replayed {
		attrs = append(attrs, slog.Bool("replayed", true))
	}
	if r.Permanent {
		attrs = append(attrs, slog.Bool("permanent", true))
	}
	if r.DryRun {
		attrs = append(attrs, slog.Bool("dry_run", true))
	}
	return attrs
}

// countList counts the entries of a list argument (an array, or one string).
func countList(v any) int {
	switch l := v.(type) {
	case []any:
		return len(l)
	case string:
		if l != "" {
			return 1
		}
	}
	return 0
}

// maxAuditString bounds a caller-chosen string before it is logged.
const maxAuditString = 200

// clipAny bounds a uid argument (a number or a string) for the log.
func clipAny(v any) any {
	if s, ok := v.(string); ok {
		return message.Truncate(s, maxAuditString)
	}
	return v
}
