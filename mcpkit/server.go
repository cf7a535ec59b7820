// Package mcpkit is the MCP framework of email-mcp's tools: a tool is
// declared once, as a Spec with its toolset, its annotations and a handler
// that returns either a result value or an error, and the server turns
// that into an MCP tool. Results become JSON text plus structuredContent,
// cleaned of hidden characters; errors are classified once (Classify, with
// the classification of Options.Classify) into a result with
// isError, the text "CODE: message" and structuredContent
// {"error":{"code","message","retryable"}}. Protocol faults (unknown
// method, malformed JSON-RPC) stay JSON-RPC errors.
//
// Around every call: the rate limit (Options.CallLimit), the refusal of
// undeclared arguments, one log line, the audit line of calls that change
// something, and the choice of the account (accounts.go). Toolsets choose
// which tools are served; read-only mode does not even list a tool that
// changes a mailbox or sends mail. The transports reach the server through
// transport.go; the tools (package tools) declare the Specs and know the
// mail. Nothing here knows IMAP or SMTP.
package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/email-mcp/email-mcp/message"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options configure the MCP server.
type Options struct {
	Name     string   // server name reported in initialize and /health
	Version  string   // server version
	ReadOnly bool     // hide every tool that changes a mailbox or sends mail
	Toolsets []string // toolsets to serve; empty means all
	Logger   *slog.Logger
	// Instructions are the server's instructions of initialize.
	Instructions string
	// Classify turns a handler's error into the tool error of its result
	// (the adapters' sentinels: Classify(err, sentinels)); nil: Classify
	// with no sentinels.
	Classify func(error) *Error
	// CallerID names the authenticated caller of a request (the API key's
	// id, never the key): the audit log records it and legacy SSE sessions
	// are bound to it. Nil treats every request as one caller.
	CallerID func(context.Context) string
	// CallLimit is asked before each tool call runs (RATE_LIMIT_PER_MINUTE):
	// 0 lets the call run; a positive wait refuses it with RATE_LIMITED and
	// retry_after_seconds. Only tool calls count: the handshake, tools/list,
	// pings and notifications never reach it. Nil: no limit.
	CallLimit func(context.Context) time.Duration
	// CallerAccounts names the accounts the caller of a request may use
	// (MCP_API_KEYS scopes); nil, or a nil answer, allows every account.
	CallerAccounts func(context.Context) []string
}

// Server holds the MCP server and the tools it serves.
type Server struct {
	mcp     *server.MCPServer
	opts    Options
	log     *slog.Logger
	served  map[string]*Spec // by name
	hidden  map[string]*Spec // known but not served (read-only mode or toolset off)
	started time.Time
	calls   inflight // tool calls running, for a drain at shutdown
	// accounts are the mailboxes served, the default first (accounts.go).
	accounts []Account

	hook resultHook // the transport's ResultHook (transport.go)
}

// Spec declares one tool.
type Spec struct {
	Name        string
	Title       string
	Description string
	Toolset     string
	// annotations, declared truthfully for every tool
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// ChangesMail marks tools hidden in read-only mode (they change a
	// mailbox or send mail); download_attachment writes only the workspace
	// and stays.
	ChangesMail bool
	// AuditIf names a boolean argument without which a call that is not
	// read-only is not audited (read_email's mark_read).
	AuditIf string
	// FolderArgs name the string arguments that are folders, for the
	// audit line (the folder tools' name, parent, from, to).
	FolderArgs []string
	Params     []mcp.ToolOption
	Output     mcp.ToolOption
	Handle     func(ctx context.Context, req mcp.CallToolRequest) (any, error)

	// args are the argument names the tool declares (its input schema's
	// properties), filled by register; a call with any other is refused.
	args map[string]bool
	// required are the arguments its input schema requires, in order: a
	// call without one of them (or with null) is refused before Handle.
	required []string
	// routes are the instances of this tool by account, with more than one
	// account (accounts.go); nil serves the spec itself.
	routes map[string]*Spec
	// global marks a tool that is the server's, not an account's
	// (list_accounts): it takes no "account".
	global bool
}

// New builds the MCP server of the accounts' tools; the first account is
// the default (the one a call without "account" uses, when its caller
// may). With one account the tools take no "account".
func New(accounts []Account, opts Options) (*Server, error) {
	if err := checkAccounts(accounts); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Name == "" {
		opts.Name = "email-mcp"
	}
	s := &Server{opts: opts, log: opts.Logger, served: map[string]*Spec{}, hidden: map[string]*Spec{}, started: time.Now(),
		accounts: accounts}
	s.mcp = server.NewMCPServer(opts.Name, opts.Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(opts.Instructions),
		server.WithToolFilter(s.filterAccounts),
	)
	order, routes := accountSpecs(accounts)
	if s.multi() {
		order = append(order, listAccountsSpec(s))
	}
	for _, sp := range order {
		if s.multi() && !sp.global {
			sp.routes = routes[sp.Name]
			sp.Params = append(slices.Clip(sp.Params), accountParam(s.accountNames(), accounts[0].Name))
		}
		if err := s.register(sp); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Server) register(sp *Spec) error {
	enabled := sp.global || len(s.opts.Toolsets) == 0 || slices.Contains(s.opts.Toolsets, sp.Toolset)
	if !enabled || (s.opts.ReadOnly && sp.ChangesMail) {
		s.hidden[sp.Name] = sp
		return nil
	}
	if _, dup := s.served[sp.Name]; dup {
		return fmt.Errorf("mcpkit: %s registered twice", sp.Name)
	}
	opts := []mcp.ToolOption{
		mcp.WithDescription(sp.Description),
		mcp.WithTitleAnnotation(sp.Title),
		mcp.WithReadOnlyHintAnnotation(sp.ReadOnly),
		mcp.WithDestructiveHintAnnotation(sp.Destructive),
		mcp.WithIdempotentHintAnnotation(sp.Idempotent),
		mcp.WithOpenWorldHintAnnotation(sp.OpenWorld),
	}
	opts = append(opts, sp.Params...)
	if sp.Output != nil {
		opts = append(opts, sp.Output)
	}
	tool := mcp.NewTool(sp.Name, opts...)
	if sp.routes != nil {
		accountOutput(&tool)
	}
	if err := allowErrorOutput(&tool); err != nil {
		return fmt.Errorf("mcpkit: %s: %w", sp.Name, err)
	}
	sp.args = map[string]bool{}
	for name := range tool.InputSchema.Properties {
		sp.args[name] = true
	}
	sp.required = tool.InputSchema.Required
	s.served[sp.Name] = sp
	s.mcp.AddTool(tool, s.wrap(sp))
	return nil
}

// errorOutputSchema is the structuredContent of a failed call (errorResult):
// {"error":{"code","message","retryable", and a code's details}}. It names
// the required fields only: every tool repeats it in tools/list, whose size
// counts for clients that load every tool into context.
const errorOutputSchema = `{"type":"object","required":["error"],"properties":{"error":{"type":"object","required":["code","message","retryable"]}}}`

// allowErrorOutput makes a tool's output schema accept the structuredContent
// of an error result too: {"type":"object","anyOf":[result, error]}.
// Clients check structuredContent against the outputSchema even when isError
// is set (the TypeScript SDK's callTool throws -32602 otherwise), and
// DESIGN.md's error results carry {"error":{…}} there.
func allowErrorOutput(tool *mcp.Tool) error {
	if tool.OutputSchema.Type == "" {
		return nil
	}
	result, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		return err
	}
	tool.OutputSchema = mcp.ToolOutputSchema{}
	tool.RawOutputSchema = json.RawMessage(`{"type":"object","anyOf":[` + string(result) + `,` + errorOutputSchema + `]}`)
	return nil
}

// wrap adapts a Spec's handler to mcp-go: results become JSON text plus
// structuredContent, errors become isError results built by errorResult, and
// every call is logged once with its duration and outcome.
func (s *Server) wrap(sp *Spec) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.calls.start()
		defer s.calls.done()
		start := time.Now()
		if te := s.overLimit(ctx); te != nil {
			s.logCall(ctx, sp, start, te)
			return errorResult(te), nil
		}
		args := req.GetArguments()
		out, text, cleaned, err := s.run(ctx, sp, req)
		if err != nil {
			te := s.failure(ctx, err)
			s.logCall(ctx, sp, start, te)
			if audited(sp, args) {
				s.audit(ctx, sp, args, nil, te)
			}
			return errorResult(cleanError(te)), nil
		}
		s.logCall(ctx, sp, start, nil)
		if audited(sp, args) {
			s.audit(ctx, sp, args, text, nil)
		}
		if res := s.placeholder(ctx, text); res != nil { // /mcp: the transport's splice
			return res, nil
		}
		if cleaned {
			return mcp.NewToolResultStructured(json.RawMessage(text), string(text)), nil
		}
		return mcp.NewToolResultStructured(out, string(text)), nil
	}
}

// run checks a call's arguments, hands it to its account's instance of the
// tool and encodes the result: its JSON text, cleaned (clean.go), naming
// the account when there are several. cleaned reports that text is no
// longer out's own encoding.
func (s *Server) run(ctx context.Context, sp *Spec, req mcp.CallToolRequest) (out any, text []byte, cleaned bool, err error) {
	args := req.GetArguments()
	target, account := sp, ""
	if err = sp.undeclared(args); err == nil {
		err = sp.missing(args)
	}
	if err == nil && !sp.global {
		target, account, err = s.route(ctx, sp, args)
	}
	if err != nil {
		return nil, nil, false, err
	}
	if out, err = target.Handle(ctx, withoutAccount(req)); err != nil {
		return nil, nil, false, err
	}
	if text, err = json.Marshal(out); err != nil {
		return nil, nil, false, err
	}
	text, cleaned = CleanResult(out, text)
	if sp.routes != nil {
		text, cleaned = withAccount(text, account), true
	}
	return out, text, cleaned, nil
}

// failure classifies a failed call. Cancelled: the call ended because its
// client went away; a failure the handler met first (a refused send) keeps
// its code.
func (s *Server) failure(ctx context.Context, err error) *Error {
	if errors.Is(ctx.Err(), context.Canceled) && errors.Is(err, context.Canceled) {
		return &Error{Code: CodeCancelled, Message: codeInfo[CodeCancelled].message, Cause: err}
	}
	return s.Classify(err)
}

// overLimit asks Options.CallLimit whether a call may run, and returns the
// RATE_LIMITED error when it may not.
func (s *Server) overLimit(ctx context.Context) *Error {
	if s.opts.CallLimit == nil {
		return nil
	}
	wait := s.opts.CallLimit(ctx)
	if wait <= 0 {
		return nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	return &Error{Code: CodeRateLimited,
		Message: fmt.Sprintf("too many tool calls for this API key (RATE_LIMIT_PER_MINUTE); retry after %d s", secs),
		Details: map[string]any{"retry_after_seconds": secs}}
}

// undeclared refuses an argument the tool does not declare, compared
// exactly: encoding/json would bind "MARK_READ" to mark_read (and the audit,
// which looks for "mark_read", would miss it), and tools that share an
// argument struct (the waits) would take filters they do not offer.
func (sp *Spec) undeclared(args map[string]any) error {
	for name := range args {
		if !sp.args[name] {
			names := slices.Sorted(maps.Keys(sp.args))
			return InvalidArg("unknown argument %q (%s takes: %s)", message.Truncate(name, 80), sp.Name, strings.Join(names, ", "))
		}
	}
	return nil
}

// missing refuses a call that lacks a required argument or gives it as
// null, naming every one missing: handlers may take a required argument
// as given.
func (sp *Spec) missing(args map[string]any) error {
	var names []string
	for _, name := range sp.required {
		if v, ok := args[name]; !ok || v == nil {
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return nil
	case 1:
		return InvalidArg("%s is required", names[0])
	}
	return InvalidArg("%s and %s are required", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

func (s *Server) logCall(ctx context.Context, sp *Spec, start time.Time, te *Error) {
	attrs := []slog.Attr{
		slog.String("tool", sp.Name),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()),
	}
	if te == nil {
		s.log.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
		return
	}
	attrs = append(attrs, slog.String("code", string(te.Code)))
	if te.Cause != nil {
		attrs = append(attrs, slog.String("cause", te.Cause.Error()))
	}
	level, msg := slog.LevelInfo, "tool call failed"
	if te.Code == CodeCancelled {
		msg = "tool call cancelled"
	}
	if te.Code == CodeInternal || te.Code == CodeConnectionFailed || te.Code == CodeAuthFailed || te.Code == CodeTLSFailed {
		level = slog.LevelWarn
	}
	s.log.LogAttrs(ctx, level, msg, attrs...)
}

// callerID is Options.CallerID, or "" without one.
func (s *Server) callerID(ctx context.Context) string {
	if s.opts.CallerID == nil {
		return ""
	}
	return s.opts.CallerID(ctx)
}

// Classify is Options.Classify, the classification of every failed call.
func (s *Server) Classify(err error) *Error {
	if s.opts.Classify == nil {
		return Classify(err, nil)
	}
	return s.opts.Classify(err)
}

// MCP returns the underlying mcp-go server (for transports and tests).
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// ToolNames returns the names of the served tools, sorted.
func (s *Server) ToolNames() []string {
	names := make([]string, 0, len(s.served))
	for n := range s.served {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
