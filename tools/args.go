package tools

import (
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// Argument binding is mcpkit's (BindArgs: unknown names, wrong types,
// numeric strings, lengths; StringList, ArgError, Bound, Limit,
// CheckFilters); this file holds the argument types of mail.

// UID is a message reference argument: a positive UID given as a JSON
// number or a numeric string (the seed accepted both), or an id
// "msg_<uidvalidity>_<uid>" as search_emails returns, which also pins the
// folder's UIDVALIDITY: once the folder is recreated the id is refused.
// Its fields are imap.Ref's: Validity is 0 when given as a plain number.
type UID imap.Ref

// UnmarshalJSON accepts 42, "42", 42.0 and "msg_7_42"; anything else is an
// error naming what was given.
func (u *UID) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	if r, ok := imap.ParseID(s); ok && r.UID != 0 {
		*u = UID(r)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(uint32(f)) || f < 1 {
		return &mcpkit.ArgError{Msg: fmt.Sprintf("uid must be a positive integer or a msg_<uidvalidity>_<uid> id (got %s)", message.Truncate(string(b), 40))}
	}
	*u = UID{UID: uint32(f)}
	return nil
}

// uidSchema declares "integer or string" for uid arguments.
func uidSchema() mcp.PropertyOption { return mcpkit.Types("integer", "string") }

// msgID is the id of a message: valid while the folder's UIDVALIDITY is
// (imap.Ref.ID).
func msgID(validity, uid uint32) string { return imap.Ref{UID: uid, Validity: validity}.ID() }
