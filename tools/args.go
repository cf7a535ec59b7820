package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// Argument binding is mcpkit's (BindArgs: unknown names, wrong types,
// numeric strings, lengths); this file holds the argument types of mail.

// bindArgs decodes a call's arguments into dst (mcpkit.BindArgs).
func bindArgs(req mcp.CallToolRequest, dst any) *Error { return mcpkit.BindArgs(req, dst) }

// truncate cuts s to n bytes (mcpkit.Truncate).
func truncate(s string, n int) string { return mcpkit.Truncate(s, n) }

// StringList takes an array of strings or one string of addresses
// (mcpkit.StringList).
type StringList = mcpkit.StringList

// argError is the error of an argument type's UnmarshalJSON (mcpkit.ArgError).
type argError = mcpkit.ArgError

// UID is a message reference argument: a positive UID given as a JSON
// number or a numeric string (the seed accepted both), or an id
// "msg_<uidvalidity>_<uid>" as search_emails returns, which also pins the
// folder's UIDVALIDITY: once the folder is recreated the id is refused.
type UID struct {
	UID      uint32
	Validity uint32 // 0 when given as a plain number
}

// UnmarshalJSON accepts 42, "42", 42.0 and "msg_7_42"; anything else is an
// error naming what was given.
func (u *UID) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	if v, uid, ok := parseMsgID(s); ok {
		*u = UID{UID: uid, Validity: v}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(uint32(f)) || f < 1 {
		return &argError{Msg: fmt.Sprintf("uid must be a positive integer or a msg_<uidvalidity>_<uid> id (got %s)", truncate(string(b), 40))}
	}
	*u = UID{UID: uint32(f)}
	return nil
}

// msgID is the id of a message: valid while the folder's UIDVALIDITY is.
func msgID(validity, uid uint32) string { return fmt.Sprintf("msg_%d_%d", validity, uid) }

func parseMsgID(s string) (validity, uid uint32, ok bool) {
	rest, found := strings.CutPrefix(s, "msg_")
	if !found {
		return 0, 0, false
	}
	vs, us, found := strings.Cut(rest, "_")
	if !found {
		return 0, 0, false
	}
	v, err1 := strconv.ParseUint(vs, 10, 32)
	n, err2 := strconv.ParseUint(us, 10, 32)
	if err1 != nil || err2 != nil || v == 0 || n == 0 {
		return 0, 0, false
	}
	return uint32(v), uint32(n), true
}

// maxFilterLen bounds a text filter (below defaultMaxArg: an IMAP SEARCH
// term).
const maxFilterLen = 1000

// checkFilters is the one validation of every text filter of every tool,
// in the order given: search_emails' from, to, subject, body and text,
// list_messages' and wait_for_email's subject_contains and sender. A filter
// is plain text of at most maxFilterLen bytes: a control character (a NUL)
// reached IMAP SEARCH, whose refusal came back as INTERNAL, retryable, from
// list_messages, and made a wait wait for nothing.
func checkFilters(filters ...filter) error {
	for _, f := range filters {
		if len(f.value) > maxFilterLen || containsControl(f.value) {
			return invalidArg("%s must be plain text (no control characters) of at most %d bytes", f.name, maxFilterLen)
		}
	}
	return nil
}

// filter is a text filter argument: its name and value.
type filter struct{ name, value string }

// bound is a handler that binds the call's arguments into an A (bindArgs)
// and runs f with them: what nearly every tool's handler does first.
func bound[A any](f func(ctx context.Context, args A) (any, error)) func(context.Context, mcp.CallToolRequest) (any, error) {
	return func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
		var args A
		if err := bindArgs(req, &args); err != nil {
			return nil, err
		}
		return f(ctx, args)
	}
}
