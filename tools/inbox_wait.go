package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

type waitArgs struct {
	InboxID         string   `json:"inbox_id"`
	SubjectContains string   `json:"subject_contains"`
	Sender          string   `json:"sender"`
	Timeout         *float64 `json:"timeout"`
	Since           Since    `json:"since"`
	MinConfidence   *float64 `json:"min_confidence"`
}

func waitParams(extra ...mcp.ToolOption) []mcp.ToolOption {
	return append([]mcp.ToolOption{
		inboxIDParam(),
		mcp.WithNumber("timeout", mcp.DefaultNumber(60), mcp.Min(1), mcp.Description("seconds to wait at most (capped by WAIT_MAX_SECONDS)")),
		sinceParam(),
	}, extra...)
}

const waitNote = " Blocks until it arrives (pushed by IMAP IDLE, no polling needed); on timeout the error WAIT_TIMEOUT carries next_since: call again with since=next_since and nothing is missed; for the next mail after a result, pass its id as since. Sends progress notifications while waiting."

// WaitEmailResult is wait_for_email's result.
type WaitEmailResult struct {
	InboxMessage
}

// WaitOTPResult is wait_for_otp's result.
type WaitOTPResult struct {
	OTP        string  `json:"otp" jsonschema:"the code as the user types it"`
	Confidence float64 `json:"confidence"`
	Subject    string  `json:"subject"`
	From       string  `json:"from"`
	ID         string  `json:"id" jsonschema:"the message id: since for the next wait, uid for read_email"`
	ReceivedAt string  `json:"received_at"`
	// Bounds (SECURITY.md), as in list_messages.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early"`
}

// WaitLinkResult is wait_for_link's result.
type WaitLinkResult struct {
	Link       string   `json:"link" jsonschema:"the best action link (verify, sign in, reset...): never followed by the server"`
	Links      []string `json:"links" jsonschema:"every candidate link, best first"`
	Subject    string   `json:"subject"`
	From       string   `json:"from"`
	ID         string   `json:"id"`
	ReceivedAt string   `json:"received_at"`
	// Bounds (SECURITY.md), as in list_messages.
	SubjectTruncated bool `json:"subject_truncated,omitempty" jsonschema:"the subject is longer than 1000 characters: it ends early"`
}

func waitSpec(ib *inboxes, name, title, desc string, output mcp.ToolOption, extra []mcp.ToolOption,
	match func(a waitArgs, m *imap.NewMail, validity uint32) (any, bool)) *spec {
	return &spec{
		name: name, title: title, description: desc + waitNote + inboxNote,
		toolset:  ToolsetInbox,
		readOnly: true, idempotent: true, openWorld: true,
		params: waitParams(extra...),
		output: output,
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args waitArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			addr, err := ib.resolveWait(ctx, args)
			if err != nil {
				return nil, err
			}
			timeout, err := ib.clampTimeout(args.Timeout)
			if err != nil {
				return nil, err
			}
			c, err := ib.pinCutoff(ctx, args.Since)
			if err != nil {
				return nil, err
			}
			return ib.wait(ctx, req, addr, c, timeout, func(m *imap.NewMail) (any, bool) { return match(args, m, c.validity) })
		},
	}
}

func waitForEmailSpec(ib *inboxes) *spec {
	return waitSpec(ib, "wait_for_email", "Wait for an email",
		"Wait for the next message to a test inbox (optionally with subject_contains and sender) and return it with its code and link.",
		mcp.WithOutputSchema[WaitEmailResult](),
		[]mcp.ToolOption{mcp.WithString("subject_contains"), mcp.WithString("sender")},
		func(a waitArgs, m *imap.NewMail, validity uint32) (any, bool) {
			hdr, _ := message.ParseHeader(m.Raw) // the filters first: the body only for a match
			if !matches(inboxHead(validity, m.UID, m.InternalDate, hdr), a.SubjectContains, a.Sender) {
				return nil, false
			}
			return &WaitEmailResult{inboxMessage(validity, m.UID, m.InternalDate, m.Raw)}, true
		})
}

func waitForOTPSpec(ib *inboxes) *spec {
	return waitSpec(ib, "wait_for_otp", "Wait for a one-time code",
		"Wait until a message with a one-time code (OTP, verification code) reaches a test inbox and return the code.",
		mcp.WithOutputSchema[WaitOTPResult](),
		[]mcp.ToolOption{mcp.WithNumber("min_confidence", mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(1),
			mcp.Description("ignore codes found with less confidence (0..1); a code counts as found from 0.5"))},
		func(a waitArgs, m *imap.NewMail, validity uint32) (any, bool) {
			view, hdr := extractView(m.Raw)
			otp, ok := extract.BestOTP(view)
			if !ok || (a.MinConfidence != nil && otp.Confidence < *a.MinConfidence) {
				return nil, false
			}
			s := inboxHead(validity, m.UID, m.InternalDate, hdr)
			return &WaitOTPResult{OTP: otp.Code, Confidence: otp.Confidence, Subject: s.Subject, From: s.From, ID: s.ID, ReceivedAt: s.ReceivedAt, SubjectTruncated: s.SubjectTruncated}, true
		})
}

func waitForLinkSpec(ib *inboxes) *spec {
	return waitSpec(ib, "wait_for_link", "Wait for a magic link",
		"Wait until a message with an action link (verify, confirm, sign in, reset password) reaches a test inbox and return the link. The link is never fetched: open it yourself.",
		mcp.WithOutputSchema[WaitLinkResult](), nil,
		func(a waitArgs, m *imap.NewMail, validity uint32) (any, bool) {
			view, hdr := extractView(m.Raw)
			var urls []string
			for _, l := range extract.Links(view) {
				urls = append(urls, l.URL)
			}
			urls = boundLinks(urls) // bounds: SECURITY.md
			if len(urls) == 0 {
				return nil, false
			}
			s := inboxHead(validity, m.UID, m.InternalDate, hdr)
			return &WaitLinkResult{Link: urls[0], Links: urls, Subject: s.Subject, From: s.From, ID: s.ID, ReceivedAt: s.ReceivedAt, SubjectTruncated: s.SubjectTruncated}, true
		})
}
