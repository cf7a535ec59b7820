package inboxtools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/mcpkit"
)

type waitArgs struct {
	InboxID         string   `json:"inbox_id"`
	SubjectContains string   `json:"subject_contains"`
	Sender          string   `json:"sender"`
	Timeout         *float64 `json:"timeout"`
	Since           sinceArg `json:"since"`
	MinConfidence   *float64 `json:"min_confidence"`
}

// sinceArg is the since argument: an inbox.Since whose refusal is an
// argument error (INVALID_ARGUMENT with its message, from mcpkit.BindArgs).
type sinceArg struct{ inbox.Since }

func (s *sinceArg) UnmarshalJSON(b []byte) error {
	err := s.Since.UnmarshalJSON(b)
	var e *inbox.Error
	if errors.As(err, &e) {
		return &mcpkit.ArgError{Msg: e.Msg}
	}
	return err
}

// sinceParam declares since: a string or a number.
func sinceParam() mcp.ToolOption {
	return mcp.WithAny("since", mcpkit.Types("string", "number"),
		mcp.Description(sinceDescription))
}

const sinceDescription = "only mail after this: best an id (next_since, a result's id); or 0 (all), " +
	"unix s or ms, RFC 3339, YYYY-MM-DD (UTC; a time counts its whole second). Omitted: mail from the call on"

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

// waitSpec is a wait tool: bind, check the filters, wait for want, shape
// what was found.
func waitSpec(ib *inbox.Inboxes, name, title, desc string, want inbox.Want, output mcp.ToolOption, extra []mcp.ToolOption,
	shape func(*inbox.Found) any) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name: name, Title: title, Description: desc + waitNote + inboxNote,
		Toolset:  Toolset,
		ReadOnly: true, Idempotent: true, OpenWorld: true,
		Params: waitParams(extra...),
		Output: output,
		Handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var a waitArgs
			if err := mcpkit.BindArgs(req, &a); err != nil {
				return nil, err
			}
			if err := checkFilters(a.SubjectContains, a.Sender); err != nil {
				return nil, err
			}
			w := inbox.Wait{InboxID: a.InboxID, Want: want, Since: a.Since.Since, Timeout: a.Timeout,
				MinConfidence: a.MinConfidence, Progress: progressOf(ctx, req)}
			w.Accept = accept(a.SubjectContains, a.Sender)
			found, err := ib.Wait(ctx, w)
			if err != nil {
				return nil, err
			}
			return shape(found), nil
		},
	}
}

// accept is a wait's filter of its subject_contains and sender; nil (any
// mail) when both are empty.
func accept(subject, sender string) func(*inbox.Mail) bool {
	if subject == "" && sender == "" {
		return nil
	}
	return func(m *inbox.Mail) bool {
		return matches(Head(m.Validity, m.UID, m.Arrived, m.Header), subject, sender)
	}
}

// matches applies subject_contains and sender to a summary.
func matches(m InboxMessage, subject, sender string) bool {
	return (subject == "" || strings.Contains(strings.ToLower(m.Subject), strings.ToLower(subject))) &&
		(sender == "" || strings.Contains(strings.ToLower(m.From), strings.ToLower(sender)))
}

func waitForEmailSpec(ib *inbox.Inboxes) *mcpkit.Spec {
	return waitSpec(ib, "wait_for_email", "Wait for an email",
		"Wait for the next message to a test inbox (optionally with subject_contains and sender) and return it with its code and link.",
		inbox.AnyMail, mcp.WithOutputSchema[WaitEmailResult](),
		[]mcp.ToolOption{mcp.WithString("subject_contains"), mcp.WithString("sender")},
		func(f *inbox.Found) any { return &WaitEmailResult{inboxMessage(&f.Mail)} })
}

func waitForOTPSpec(ib *inbox.Inboxes) *mcpkit.Spec {
	return waitSpec(ib, "wait_for_otp", "Wait for a one-time code",
		"Wait until a message with a one-time code (OTP, verification code) reaches a test inbox and return the code.",
		inbox.Code, mcp.WithOutputSchema[WaitOTPResult](),
		[]mcp.ToolOption{mcp.WithNumber("min_confidence", mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(1),
			mcp.Description("ignore codes found with less confidence (0..1); a code counts as found from 0.5"))},
		func(f *inbox.Found) any {
			s := Head(f.Validity, f.UID, f.Arrived, f.Header)
			return &WaitOTPResult{OTP: f.Code.Code, Confidence: f.Code.Confidence, Subject: s.Subject, From: s.From, ID: s.ID, ReceivedAt: s.ReceivedAt, SubjectTruncated: s.SubjectTruncated}
		})
}

func waitForLinkSpec(ib *inbox.Inboxes) *mcpkit.Spec {
	return waitSpec(ib, "wait_for_link", "Wait for a magic link",
		"Wait until a message with an action link (verify, confirm, sign in, reset password) reaches a test inbox and return the link. The link is never fetched: open it yourself.",
		inbox.Link, mcp.WithOutputSchema[WaitLinkResult](), nil,
		func(f *inbox.Found) any {
			s := Head(f.Validity, f.UID, f.Arrived, f.Header)
			return &WaitLinkResult{Link: f.Links[0], Links: f.Links, Subject: s.Subject, From: s.From, ID: s.ID, ReceivedAt: s.ReceivedAt, SubjectTruncated: s.SubjectTruncated}
		})
}

// progressOf sends a wait's progress, in seconds, as notifications/progress
// when the client asked for them (mcpkit.ProgressOf); nil otherwise.
func progressOf(ctx context.Context, req mcp.CallToolRequest) func(context.Context, time.Duration, time.Duration) {
	send := mcpkit.ProgressOf(ctx, req)
	if send == nil {
		return nil
	}
	return func(ctx context.Context, elapsed, timeout time.Duration) {
		done, total := int(elapsed.Seconds()), int(timeout.Seconds())
		send(ctx, done, total, fmt.Sprintf("waiting for email… %ds of %ds", done, total))
	}
}
