package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
)

// app is everything one run of email-mcp wires together.
type app struct {
	cfg     *config.Config
	log     *slog.Logger
	sandbox *devmail.Server        // nil with a real account
	files   *attachments.Workspace // nil without EMAIL_BASE_DIR (outside the sandbox)
	mail    *imap.Client
	sender  *smtp.Sender // nil without SMTP_HOST (read-only)
	tools   *tools.Server
	// boxes are the accounts' adapters, the default account's (mail,
	// sender) first, then EMAIL_ACCOUNTS in order.
	boxes []*mailbox

	// sandboxPassword is the sandbox's IMAP password, generated for this
	// run: the banner shows it so that a mail client can look in.
	sandboxPassword string
	// baseDir is the attachments base (EMAIL_BASE_DIR, or the sandbox's
	// own); tempBase is set when it is a temporary one that Close removes.
	baseDir, tempBase string
	// stopWaits is closed when the server starts to shut down: running
	// waits end with WAIT_TIMEOUT and next_since (tools.InboxOptions.Stop).
	stopWaits chan struct{}
}

// newLogger makes the one logger of the process; it writes to w (stderr).
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == config.LogFormatJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// sandboxOptions decide how the embedded sandbox binds.
type sandboxOptions struct {
	// fallbackPorts binds a free port when the configured one is taken (stdio
	// mode, where a desktop client may start several copies).
	fallbackPorts bool
	// stdio serves MCP on stdin/stdout: a call carries no key and may use
	// every account.
	stdio bool
}

// newApp connects the adapters: the sandbox (when no IMAP_HOST), the IMAP
// pool, the SMTP sender and the tools. No network I/O happens to a real
// account here: the pool dials lazily.
func newApp(ctx context.Context, cfg *config.Config, log *slog.Logger, so sandboxOptions) (*app, error) {
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	a := &app{cfg: cfg, log: log, stopWaits: make(chan struct{})}
	var imapOpts imap.Options
	var smtpOpts smtp.Options
	if cfg.Sandbox() {
		sb, password, err := startSandbox(ctx, cfg, log, so)
		if err != nil {
			return nil, err
		}
		a.sandbox, a.sandboxPassword = sb, password
		imapOpts, smtpOpts = sandboxAdapters(sb, password)
	} else {
		var err error
		if imapOpts, smtpOpts, err = accountAdapters(cfg); err != nil {
			return nil, err
		}
	}
	if err := a.openWorkspace(); err != nil {
		a.Close()
		return nil, err
	}
	accounts := cfg.Accounts()
	a.openMailbox(accounts[0], imapOpts, smtpOpts)
	a.mail, a.sender = a.boxes[0].mail, a.boxes[0].sender
	for _, acct := range accounts[1:] {
		io, so, err := accountAdapters(acct.Config)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("account %s: %w", acct.Name, err)
		}
		a.openMailbox(acct, io, so)
	}
	list := make([]tools.Account, len(a.boxes))
	for i, b := range a.boxes {
		list[i] = tools.Account{Name: b.name, Address: fromAddress(b.cfg), Sandbox: b.cfg.Sandbox(), Deps: a.deps(b)}
	}
	ts, err := tools.NewAccounts(list, tools.Options{
		Name:           cfg.MCPServerName,
		Version:        buildVersion(),
		ReadOnly:       cfg.MCPReadOnly,
		Toolsets:       cfg.MCPToolsets,
		Logger:         log,
		CallerID:       callerID,
		CallLimit:      callLimit(cfg.RateLimitPerMinute),
		CallerAccounts: keyScopes(cfg.APIKeys(), len(a.boxes) > 1, so.stdio),
	})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.tools = ts
	return a, nil
}

// mailbox is one account's adapters: its IMAP pool (and watcher) and its
// SMTP sender.
type mailbox struct {
	name   string
	cfg    *config.Config
	mail   *imap.Client
	sender *smtp.Sender // nil without SMTP_HOST (read-only)
}

// openMailbox makes the pool and the sender of one account; the pool dials
// lazily.
func (a *app) openMailbox(acct config.Account, imapOpts imap.Options, smtpOpts smtp.Options) {
	log := a.log
	if len(a.cfg.EmailAccounts) > 0 {
		log = log.With("account", acct.Name)
	}
	imapOpts.PoolSize = acct.IMAPPoolSize
	imapOpts.ActivePoll = acct.WaitPoll()
	imapOpts.Logger = log.With("component", "imap")
	smtpOpts.Logger = log.With("component", "smtp")
	b := &mailbox{name: acct.Name, cfg: acct.Config, mail: imap.New(imapOpts)}
	if smtpOpts.Host != "" { // SMTP_HOST may be empty only with MCP_READ_ONLY=true
		b.sender = smtp.New(smtpOpts)
	}
	a.boxes = append(a.boxes, b)
}

// deps are the tools' adapters of one account; the attachments workspace
// is the server's, shared.
func (a *app) deps(b *mailbox) tools.Deps {
	cfg := b.cfg
	deps := tools.Deps{Mail: b.mail, Files: a.files, Sent: b.mail, Inbox: b.mail, SearchPage: a.cfg.MaxSearchResults}
	if b.sender != nil {
		deps.Sender = b.sender
	}
	deps.Inboxes = tools.InboxOptions{Address: inboxAddress(cfg), Sandbox: cfg.Sandbox(), WaitMax: cfg.WaitMax(), ProgressEvery: cfg.WaitProgress(), Stop: a.stopWaits}
	deps.Send = tools.SendOptions{From: fromAddress(cfg), FromName: cfg.DefaultFromName, SaveSent: string(cfg.SaveSent), SentFolder: cfg.SentFolder,
		AllowedRecipients: cfg.SendAllowedRecipients, MaxPerHour: cfg.SendMaxPerHour}
	return deps
}

// keyScopes is MCP_API_KEYS' limits as tools.Options.CallerAccounts: the
// accounts of the key that authenticated the request, nil (every account)
// for a key without a limit. A call without a key is stdio's, which may use
// every account, or over HTTP the public /docs and /openapi.json, which see
// no account (so no name).
func keyScopes(keys []config.APIKey, multi, stdio bool) func(context.Context) []string {
	scopes := map[string][]string{}
	for _, k := range keys {
		if k.Accounts != nil {
			scopes[auth.IDOf(k.Key.Reveal())] = k.Accounts
		}
	}
	if !multi || stdio && len(scopes) == 0 {
		return nil
	}
	return func(ctx context.Context) []string {
		id, ok := auth.KeyID(ctx)
		switch {
		case !ok && stdio:
			return nil
		case !ok:
			return []string{}
		}
		return scopes[id]
	}
}

// openWorkspace opens the attachments workspace: EMAIL_BASE_DIR, or in the
// sandbox one of its own, so that the attachment tools work on a first run.
func (a *app) openWorkspace() error {
	a.baseDir = a.cfg.EmailBaseDir
	if a.baseDir == "" && a.sandbox != nil {
		dir, temporary, err := sandboxWorkspace(a.cfg.EmailDataDir)
		if err != nil {
			return fmt.Errorf("the sandbox's attachments workspace: %w", err)
		}
		a.baseDir = dir
		if temporary {
			a.tempBase = dir
		}
	}
	if a.baseDir == "" {
		return nil
	}
	ws, err := attachments.Open(attachments.Options{BaseDir: a.baseDir, MaxFileSize: a.cfg.MaxAttachmentBytes(), Logger: a.log.With("component", "attachments")})
	if err != nil && a.cfg.EmailBaseDir == "" {
		return fmt.Errorf("the sandbox's attachments workspace: %w", err)
	}
	if err != nil {
		// A configuration error (exit 2): a file where the folder should
		// be, or no permission, is not fixed by restarting.
		return &config.VarError{Name: "EMAIL_BASE_DIR", Value: a.cfg.EmailBaseDir,
			Reason: fmt.Sprintf("cannot open the attachments workspace: %v", workspaceReason(err))}
	}
	a.files = ws
	a.log.Info("attachments workspace", "dir", filepath.Join(a.baseDir, filepath.FromSlash(attachments.WorkspaceDir)), "temporary", a.tempBase != "")
	return nil
}

// sandboxWorkspaceDir is the sandbox's attachments base under EMAIL_DATA_DIR.
const sandboxWorkspaceDir = "workspace"

// sandboxWorkspace is the attachments base of a sandbox without
// EMAIL_BASE_DIR: EMAIL_DATA_DIR/workspace when that is set (kept, as the
// mail is), else a private temporary folder (0700) that Close removes.
// Never the working directory.
func sandboxWorkspace(dataDir string) (dir string, temporary bool, err error) {
	if dataDir != "" {
		abs, err := filepath.Abs(filepath.Join(dataDir, sandboxWorkspaceDir))
		return abs, false, err
	}
	dir, err = os.MkdirTemp("", "email-mcp-sandbox-")
	return dir, err == nil, err
}

// sandboxFrom is the From address of mail sent from the sandbox.
const sandboxFrom = "agent@" + devmail.DefaultDomain

// fromAddress is SMTP_USER or INBOX_ADDRESS (config.FromAddress), or the
// sandbox's own address.
func fromAddress(cfg *config.Config) string {
	if f := cfg.FromAddress(); f != "" {
		return f
	}
	return sandboxFrom
}

// inboxAddress is the base of the test inboxes: INBOX_ADDRESS (or
// IMAP_USER), or in the sandbox an address on its own domain. "" turns the
// inbox toolset off (a warning at start says why).
func inboxAddress(cfg *config.Config) string {
	if cfg.Sandbox() {
		return "inbox@" + devmail.DefaultDomain
	}
	return cfg.InboxAddress
}

// Close releases the pool and stops the sandbox.
func (a *app) Close() {
	for _, b := range a.boxes {
		_ = b.mail.Close()
	}
	if a.files != nil {
		_ = a.files.Close()
	}
	if a.tempBase != "" {
		if err := os.RemoveAll(a.tempBase); err != nil {
			a.log.Warn("remove the sandbox's temporary workspace", "dir", a.tempBase, "err", err)
		}
	}
	if a.sandbox != nil {
		if err := a.sandbox.Close(); err != nil {
			a.log.Warn("sandbox close", "err", err)
		}
	}
}

// startSandbox starts the embedded mail server with a fresh random IMAP
// password, which it returns for the pool.
func startSandbox(ctx context.Context, cfg *config.Config, log *slog.Logger, so sandboxOptions) (*devmail.Server, string, error) {
	opts := devmail.Options{
		IMAPAddr: cfg.DevIMAPAddr,
		SMTPAddr: cfg.DevSMTPAddr,
		Username: "sandbox",
		Password: randomToken(16),
		DataDir:  cfg.EmailDataDir,
		Logger:   log.With("component", "sandbox"),
	}
	sb, err := devmail.Start(ctx, opts)
	if err != nil && so.fallbackPorts {
		log.Warn("sandbox ports taken, using free ports", "err", err)
		opts.IMAPAddr, opts.SMTPAddr = "127.0.0.1:0", "127.0.0.1:0"
		sb, err = devmail.Start(ctx, opts)
	}
	if err != nil {
		return nil, "", fmt.Errorf("start the sandbox mail server: %w", err)
	}
	log.Info("sandbox mail server started", "imap", sb.IMAPAddr(), "smtp", sb.SMTPAddr(), "persistent", cfg.EmailDataDir != "")
	return sb, opts.Password, nil
}

func sandboxAdapters(sb *devmail.Server, password string) (imap.Options, smtp.Options) {
	ih, ip := splitHostPort(sb.IMAPAddr())
	sh, sp := splitHostPort(sb.SMTPAddr())
	return imap.Options{Host: ih, Port: ip, Username: sb.Username(), Password: password, Security: imap.SecurityPlain},
		smtp.Options{Host: sh, Port: sp, Security: smtp.SecurityPlain}
}

func accountAdapters(cfg *config.Config) (imap.Options, smtp.Options, error) {
	imapTLS, err := tlsConfig(cfg, cfg.IMAPHost, cfg.IMAPTLSSkipVerify)
	if err != nil {
		return imap.Options{}, smtp.Options{}, err
	}
	smtpTLS, err := tlsConfig(cfg, cfg.SMTPHost, cfg.SMTPTLSSkipVerify)
	if err != nil {
		return imap.Options{}, smtp.Options{}, err
	}
	io := imap.Options{
		Host: cfg.IMAPHost, Port: cfg.IMAPPort,
		Username: cfg.IMAPUser, Password: cfg.IMAPPassword.Reveal(),
		Security: imapSecurity(cfg), TLSConfig: imapTLS,
		AllowPlainLogin: cfg.IMAPAllowPlaintext,
	}
	so := smtp.Options{
		Host: cfg.SMTPHost, Port: cfg.SMTPPort,
		Username: cfg.SMTPUser, Password: cfg.SMTPPassword.Reveal(),
		Security: smtpSecurity(cfg), TLSConfig: smtpTLS,
		AllowPlainAuth: cfg.SMTPAllowPlaintext,
	}
	if cfg.OAuth() {
		src, err := tokenSource(cfg)
		if err != nil {
			return imap.Options{}, smtp.Options{}, err
		}
		io.Password, so.Password = "", ""
		io.Token, so.Token = src, src
		io.OAuthMechanism, so.OAuthMechanism = cfg.OAuthMechanism.SASL(), cfg.OAuthMechanism.SASL()
	}
	return io, so, nil
}

func imapSecurity(cfg *config.Config) imap.Security {
	if cfg.IMAPSSL {
		return imap.SecurityTLS
	}
	switch cfg.IMAPStartTLS {
	case config.StartTLSOpportunistic:
		return imap.SecurityStartTLSOptional
	case config.StartTLSDisabled:
		return imap.SecurityPlain
	}
	return imap.SecurityStartTLS
}

func smtpSecurity(cfg *config.Config) smtp.Security {
	if cfg.SMTPUseSSL() {
		return smtp.SecurityTLS
	}
	switch cfg.SMTPStartTLS {
	case config.StartTLSOpportunistic:
		return smtp.SecurityStartTLSOptional
	case config.StartTLSDisabled:
		return smtp.SecurityPlain
	}
	return smtp.SecurityStartTLS
}

// tlsConfig trusts the system roots plus TLS_CA_FILE, for one server name.
func tlsConfig(cfg *config.Config, host string, skipVerify bool) (*tls.Config, error) {
	pool, err := cfg.CAPool()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         host,
		RootCAs:            pool,
		InsecureSkipVerify: skipVerify, //nolint:gosec // only when the user asked, with a loud warning
	}, nil
}

func splitHostPort(addr string) (string, int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

// randomToken returns n random bytes, hex encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

// readyChecks are what /ready verifies: an IMAP NOOP through the pool and an
// SMTP EHLO.
func (a *app) readyChecks() []transport.ReadyCheck {
	var checks []transport.ReadyCheck
	for i, b := range a.boxes {
		suffix := ""
		if i > 0 {
			suffix = ":" + b.name // the default account's checks keep their names
		}
		checks = append(checks, transport.ReadyCheck{Name: "imap" + suffix, Check: b.mail.Noop})
		if b.sender != nil {
			checks = append(checks, transport.ReadyCheck{Name: "smtp" + suffix, Check: b.sender.Check})
		}
	}
	return checks
}

// shutdownTimeout bounds the drain of in-flight calls on SIGTERM.
const shutdownTimeout = 20 * time.Second

// workspaceReason is the cause of a failed attachments.Open without the
// path, which VarError already shows as the value.
func workspaceReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
