package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
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

// msgID is the id of a message: valid while the folder's UIDVALIDITY is
// (imap.Ref.ID).
func msgID(validity, uid uint32) string { return imap.Ref{UID: uid, Validity: validity}.ID() }

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
