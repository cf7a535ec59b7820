package inboxtools

import (
	"encoding/json"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/message"
)

// Found is what wait_for_otp and wait_for_link would take from a message:
// its best code and best action link, each with its confidence in [0,1]
// (empty when there is none).
type Found struct {
	OTP           string  `json:"otp"`
	OTPConfidence float64 `json:"otp_confidence"`
	Link          string  `json:"link"`
	LinkScore     float64 `json:"link_confidence"`
	LinkKind      string  `json:"link_kind"`
}

// Find runs the extractors of the waits on a raw message and returns the
// Found as JSON: what the web inbox shows of a message (tools.Server.Find).
func Find(raw []byte) json.RawMessage {
	view, _ := inbox.View(raw)
	var f Found
	if otp, ok := extract.BestOTP(view); ok {
		f.OTP, f.OTPConfidence = otp.Code, otp.Confidence
	}
	if l, ok := extract.BestLink(view); ok {
		f.Link, f.LinkScore, f.LinkKind = l.URL, l.Score, l.Kind
	}
	f.OTP, _ = message.CleanLine(f.OTP)
	f.Link, _ = message.CleanLine(f.Link)
	b, _ := json.Marshal(f)
	return b
}
