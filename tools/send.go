package tools

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/outbox"
	"github.com/email-mcp/email-mcp/smtp"
)

// SendOptions configure the send tools (the send domain's, package outbox).
type SendOptions = outbox.Options

// newOutbox prepares the send domain, its errors described as the tools
// report them (for the stored results of idempotency keys).
func newOutbox(sender outbox.Sender, store outbox.SentStore, opts SendOptions, log *slog.Logger) *outbox.Outbox {
	return outbox.New(sender, store, opts, describeError, log)
}

// describeError is how a call reports err: code, message and details.
func describeError(err error) (string, string, map[string]any) {
	te := Classify(err)
	return string(te.Code), te.Message, te.Details
}

// SendResult is send_email's result.
type SendResult struct {
	Success   bool     `json:"success"`
	MessageID string   `json:"message_id" jsonschema:"Message-ID of the sent mail, without angle brackets"`
	Accepted  []string `json:"accepted" jsonschema:"recipients the server accepted"`
	Rejected  []string `json:"rejected" jsonschema:"recipients the server refused (the mail went to the others)"`
	SentCopy  string   `json:"sent_copy" jsonschema:"saved, skipped (no Sent folder, or the server filed its own), failed, or disabled"`
	// Bounds (SECURITY.md): a reply-all to a huge list echoes only its start.
	AcceptedTotal *int `json:"accepted_total,omitempty" jsonschema:"set when accepted lists only the first 100: the number of accepted recipients"`
	RejectedTotal *int `json:"rejected_total,omitempty" jsonschema:"set when rejected lists only the first 100: the number of refused recipients"`
	// Replayed marks the first result of an idempotency_key, answered again:
	// this call sent nothing.
	Replayed bool `json:"replayed,omitempty" jsonschema:"a repeat of an idempotency_key: the first send's result, nothing sent again"`
}

// sendResult shapes what a submission answered.
func sendResult(s *outbox.Sent) SendResult {
	out := SendResult{Success: true, MessageID: s.MessageID, SentCopy: s.SentCopy}
	out.Accepted, out.AcceptedTotal = message.BoundAddresses(s.Accepted, message.MaxAddresses, false, func(a string) (string, string) { return "", a })
	out.Rejected, out.RejectedTotal = message.BoundAddresses(s.Rejected, message.MaxAddresses, false, func(r smtp.Rejection) (string, string) { return "", r.Address })
	return out
}

// notSent is the SendResult of a message saved as a draft instead.
func notSent(messageID string) SendResult {
	return SendResult{Success: true, MessageID: messageID, Accepted: []string{}, Rejected: []string{}, SentCopy: outbox.CopySkipped}
}

// sendLimitsNote tells the model about the guardrails in each send tool's
// description.
const sendLimitsNote = " At most 100 recipients (to, cc and bcc together, counted in addresses). The server may restrict recipients (RECIPIENT_NOT_ALLOWED: nothing is sent) and cap sends per hour (RATE_LIMITED with retry_after_seconds)."

// maxRecipients and maxReplyTo bound the recipient arguments' schemas.
const (
	maxRecipients = outbox.MaxRecipients
	maxReplyTo    = outbox.MaxReplyTo
)

// idempotencyParam is the idempotency_key argument of every sending tool.
func idempotencyParam() mcp.ToolOption {
	return mcp.WithString("idempotency_key", mcp.MaxLength(outbox.MaxKeyLen), mcp.Description(
		"a name of your choice for this send: a repeat with it within 24 h (on any replica) sends nothing and "+
			"answers the first result, replayed: true"))
}

// checkRecordFolder refuses to take messages out of a folder of send
// records (outbox.IsRecordFolder).
func checkRecordFolder(folder string) error {
	if outbox.IsRecordFolder(folder) {
		return mcpkit.InvalidArg("folder %q holds email-mcp's send records (SEND_MAX_PER_HOUR, idempotency_key): its messages are not moved", folder)
	}
	return nil
}

// smtpAddr is an smtp.Address for message.BoundAddresses.
func smtpAddr(a smtp.Address) (string, string) { return a.Name, a.Email }
