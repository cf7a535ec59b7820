package mcpkit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// AccountInfo is one entry of list_accounts.
type AccountInfo struct {
	Name    string `json:"name"`
	Address string `json:"address" jsonschema:"the account's own address; empty when not known"`
	Default bool   `json:"default" jsonschema:"calls without an account argument use this one"`
	Sandbox bool   `json:"sandbox" jsonschema:"the embedded sandbox mail server (mail stays on this machine)"`
	Send    bool   `json:"send" jsonschema:"the send tools work for this account"`
	Inboxes bool   `json:"inboxes" jsonschema:"the test-inbox tools work for this account"`
}

// AccountsResult is list_accounts' result.
type AccountsResult struct {
	Accounts []AccountInfo `json:"accounts"`
}

// listAccountsSpec is served only with more than one account.
func listAccountsSpec(s *Server) *Spec {
	return &Spec{
		Name:        "list_accounts",
		Title:       "List accounts",
		Description: "The mail accounts this server serves (and your API key may use): pass a name as the account argument of the other tools.",
		Toolset:     "mail",
		ReadOnly:    true, Destructive: false, Idempotent: true, OpenWorld: false,
		global: true,
		Output: mcp.WithOutputSchema[AccountsResult](),
		Handle: func(ctx context.Context, _ mcp.CallToolRequest) (any, error) {
			return s.listAccounts(ctx), nil
		},
	}
}

func (s *Server) listAccounts(ctx context.Context) *AccountsResult {
	mine := s.callerAccounts(ctx)
	out := &AccountsResult{Accounts: make([]AccountInfo, 0, len(mine))}
	for i, a := range mine {
		out.Accounts = append(out.Accounts, AccountInfo{
			Name: a.Name, Address: a.Address, Default: i == 0, Sandbox: a.Sandbox,
			Send: a.Send, Inboxes: a.Inboxes,
		})
	}
	return out
}
