package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"regexp"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// Several accounts in one server.
//
// Each account has its own adapters (pool, watcher, sender) and so its own
// instance of every tool (Account.Specs). One MCP tool stands for
// all of them: with more than one account it takes an optional "account"
// argument, an enum of the names, and wrap hands the call to that account's
// instance; its result names the account. With one account nothing of this
// shows: no argument, no list_accounts, results as before.
//
// A caller may be limited to some accounts (Options.CallerAccounts, from
// MCP_API_KEYS): the enum it lists holds only its accounts, list_accounts
// shows only those, and a call naming another answers ACCOUNT_NOT_FOUND,
// the same answer as a name that does not exist, so a key learns nothing
// about the accounts of other keys.

// Account is one mailbox the server serves, with its instances of the
// tools.
type Account struct {
	// Name is how calls choose it: lower-case letters, digits and "_",
	// starting with a letter (validated by config; AccountName checks).
	Name string
	// Address is the account's own address, shown by list_accounts ("" when
	// it is not known).
	Address string
	// Sandbox marks the embedded sandbox mail server's account.
	Sandbox bool
	// Send and Inboxes say, for list_accounts, that the account has the
	// send tools and the test-inbox tools.
	Send, Inboxes bool
	// Specs are the account's tools, in the order of the tool list.
	Specs []*Spec
}

// accountArg is the argument that chooses the account.
const accountArg = "account"

// DefaultAccount is the name of the only account of a server built with New.
const DefaultAccount = "default"

var accountName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// AccountName reports whether s is a valid account name.
func AccountName(s string) bool { return accountName.MatchString(s) }

// checkAccounts refuses no account, and a name that is invalid or repeated.
func checkAccounts(accounts []Account) error {
	if len(accounts) == 0 {
		return fmt.Errorf("mcpkit: no account")
	}
	seen := map[string]bool{}
	for _, a := range accounts {
		if !AccountName(a.Name) || seen[a.Name] {
			return fmt.Errorf("mcpkit: account name %q is invalid or repeated", a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// multi reports whether the server has more than one account.
func (s *Server) multi() bool { return len(s.accounts) > 1 }

// accountSpecs gives every tool name, in the order of the tool list, the
// instances of each account that has it. The tool list of one account is
// allSpecs' order; tools that only a later account has come after.
func accountSpecs(accounts []Account) (order []*Spec, routes map[string]map[string]*Spec) {
	routes = map[string]map[string]*Spec{}
	for _, a := range accounts {
		for _, sp := range a.Specs {
			if routes[sp.Name] == nil {
				routes[sp.Name] = map[string]*Spec{}
				order = append(order, sp)
			}
			routes[sp.Name][a.Name] = sp
		}
	}
	return order, routes
}

// accountParam is the "account" argument of every tool of a server with
// several accounts.
func accountParam(names []string, def string) mcp.ToolOption {
	return mcp.WithString(accountArg, mcp.Enum(names...),
		mcp.Description("which account (list_accounts); default "+def))
}

// accountNames lists the names of the accounts.
func (s *Server) accountNames() []string {
	names := make([]string, len(s.accounts))
	for i, a := range s.accounts {
		names[i] = a.Name
	}
	return names
}

// callerAccounts are the accounts the caller of ctx may use, in the
// server's order.
func (s *Server) callerAccounts(ctx context.Context) []Account {
	if s.opts.CallerAccounts == nil {
		return s.accounts
	}
	allowed := s.opts.CallerAccounts(ctx)
	if allowed == nil {
		return s.accounts
	}
	var out []Account
	for _, a := range s.accounts {
		if slices.Contains(allowed, a.Name) {
			out = append(out, a)
		}
	}
	return out
}

// route picks the account of a call: its "account" argument, or the
// caller's first account. It answers ACCOUNT_NOT_FOUND for a name that is
// not one of the caller's accounts, and INVALID_ARGUMENT when the account
// does not offer the tool (it lacks what the tool needs, such as SMTP).
func (s *Server) route(ctx context.Context, sp *Spec, args map[string]any) (*Spec, string, error) {
	mine := s.callerAccounts(ctx)
	if len(mine) == 0 {
		return nil, "", Errorf(CodeAccountNotFound, "this API key may use no account")
	}
	name := mine[0].Name
	if v, given := args[accountArg]; given {
		str, ok := v.(string)
		if !ok {
			return nil, "", InvalidArg("account must be a string (list_accounts shows the names)")
		}
		if !slices.ContainsFunc(mine, func(a Account) bool { return a.Name == str }) {
			return nil, "", Errorf(CodeAccountNotFound, "no account %q (list_accounts shows yours)", message.Truncate(str, 40))
		}
		name = str
	}
	if sp.routes == nil {
		return sp, name, nil
	}
	target := sp.routes[name]
	if target == nil {
		return nil, name, InvalidArg("account %q does not offer %s (list_accounts says what it has)", name, sp.Name)
	}
	return target, name, nil
}

// withoutAccount returns req without its "account" argument, the raw JSON
// kept otherwise as sent (numbers are not re-encoded).
func withoutAccount(req mcp.CallToolRequest) mcp.CallToolRequest {
	args := req.GetArguments()
	if _, ok := args[accountArg]; !ok {
		return req
	}
	rest := make(map[string]any, len(args))
	for k, v := range args {
		if k != accountArg {
			rest[k] = v
		}
	}
	req.Params.Arguments = rest
	raw := bytes.TrimSpace(req.Params.RawArguments)
	req.Params.RawArguments = nil
	var fields map[string]json.RawMessage
	if len(raw) > 0 && json.Unmarshal(raw, &fields) == nil {
		delete(fields, accountArg)
		if b, err := json.Marshal(fields); err == nil {
			req.Params.RawArguments = b
		}
	}
	return req
}

// withAccount puts "account" first in a result object's JSON.
func withAccount(text []byte, name string) []byte {
	if len(text) < 2 || text[0] != '{' {
		return text
	}
	q, _ := json.Marshal(name)
	out := make([]byte, 0, len(text)+len(q)+12)
	out = append(out, `{"account":`...)
	out = append(out, q...)
	if rest := bytes.TrimSpace(text[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, text[1:]...)
}

// accountOutput adds "account" to a tool's output schema, required: every
// result of a server with several accounts names its account.
func accountOutput(tool *mcp.Tool) {
	if tool.OutputSchema.Type == "" {
		return
	}
	if tool.OutputSchema.Properties == nil {
		tool.OutputSchema.Properties = map[string]any{}
	}
	tool.OutputSchema.Properties[accountArg] = map[string]any{"type": "string", "description": "the account that served the call"}
	tool.OutputSchema.Required = append(slices.Clip(tool.OutputSchema.Required), accountArg)
}

// filterAccounts narrows the "account" enum of every listed tool to the
// caller's accounts (tools/list is per caller with scoped keys); a caller
// of no account (the public /docs) sees no "account" at all, so no name.
func (s *Server) filterAccounts(ctx context.Context, list []mcp.Tool) []mcp.Tool {
	if !s.multi() || s.opts.CallerAccounts == nil {
		return list
	}
	mine := s.callerAccounts(ctx)
	names := make([]string, len(mine))
	for i, a := range mine {
		names[i] = a.Name
	}
	out := make([]mcp.Tool, len(list))
	for i, t := range list {
		out[i] = t
		if _, ok := t.InputSchema.Properties[accountArg]; !ok {
			continue
		}
		props := make(map[string]any, len(t.InputSchema.Properties))
		for k, v := range t.InputSchema.Properties {
			props[k] = v
		}
		delete(props, accountArg)
		if len(names) > 0 {
			props[accountArg] = map[string]any{"type": "string", "enum": names, "description": "which account (list_accounts); default " + names[0]}
		}
		out[i].InputSchema.Properties = props
	}
	return out
}
