// Command email-mcp gives AI agents a real mailbox over IMAP and SMTP, as an
// MCP server.
//
//	email-mcp [serve]   HTTP server: Streamable HTTP at /mcp, legacy SSE at /sse
//	email-mcp stdio     MCP over stdin/stdout, for desktop clients
//	email-mcp check     connect with the configuration and print a diagnosis
//	email-mcp login     OAuth 2.0 device sign-in; stores the refresh token
//	email-mcp version   print the version (also --version, -v)
//
// With no IMAP_HOST configured it runs an embedded sandbox mail server
// (IMAP + catch-all SMTP on loopback) and points the tools at it.
//
// Exit status: 0 on success, 1 on a runtime failure (or a failed check),
// 2 on bad configuration or usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/email-mcp/email-mcp/config"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

const (
	exitOK      = 0
	exitFailure = 1
	exitConfig  = 2
)

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a bad command line: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

const usage = `Usage: email-mcp [serve|stdio|check|login|version] [--env-file PATH]

  serve     HTTP server (default): /mcp, /sse, /mcp/tools, /mcp/call, /health, /ready
  stdio     MCP over stdin/stdout for desktop clients (no API key; logs on stderr)
  check     connect to IMAP and SMTP with the configuration and print a diagnosis
  login     OAuth 2.0 sign-in (device grant): prints a URL and a code, stores the
            refresh token (0600) [--out PATH] [--issuer URL] [--browser]
  version   print the version (also --version, -v)

  --env-file PATH   read variables from PATH (default: ./.env when present);
                    real environment variables win over the file

With no IMAP_HOST set, email-mcp runs its embedded sandbox mail server.
`

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, envFile, explicit, lf, err := parseArgsLogin(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "email-mcp: %v\n\n%s", err, usage)
		return exitConfig
	}
	if cmd == "version" {
		fmt.Fprintf(stdout, "email-mcp %s\n", buildVersion())
		return exitOK
	}
	cfg, err := config.Load(config.LoadOptions{EnvFile: envFile, EnvFileExplicit: explicit})
	if err != nil {
		fmt.Fprintln(stderr, "email-mcp: the configuration is not valid:")
		for _, line := range configErrorLines(err) {
			fmt.Fprintf(stderr, "  %s\n", line)
		}
		return exitConfig
	}
	switch cmd {
	case "stdio":
		return runStdio(ctx, cfg, stdin, stdout, stderr)
	case "check":
		return runCheck(ctx, cfg, stdout, stderr)
	case "login":
		return runLogin(ctx, cfg, lf, stdout, stderr)
	default:
		return runServe(ctx, cfg, stdout, stderr)
	}
}

func parseArgs(args []string, stderr io.Writer) (cmd, envFile string, explicit bool, err error) {
	cmd, envFile, explicit, _, err = parseArgsLogin(args, stderr)
	return cmd, envFile, explicit, err
}

// parseArgsLogin is parseArgs with the flags of `login`.
func parseArgsLogin(args []string, stderr io.Writer) (cmd, envFile string, explicit bool, lf loginFlags, err error) {
	cmd = "serve"
	switch {
	case len(args) > 0 && isVersionFlag(args[0]):
		cmd, args = "version", args[1:] // email-mcp --version, as most tools take it
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve", "stdio", "check", "version", "login":
	case "help":
		return "", "", false, lf, flag.ErrHelp
	default:
		return "", "", false, lf, &usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	fs := flag.NewFlagSet("email-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&envFile, "env-file", "", "path of a .env file")
	if cmd == "login" {
		addLoginFlags(fs, &lf)
	}
	if err := fs.Parse(args); err != nil {
		return "", "", false, lf, err
	}
	if fs.NArg() > 0 {
		return "", "", false, lf, &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "env-file" })
	return cmd, envFile, explicit, lf, nil
}

// isVersionFlag reports --version, -version and -v, which mean the version
// command.
func isVersionFlag(arg string) bool {
	return arg == "--version" || arg == "-version" || arg == "-v"
}

// configErrorLines splits a joined configuration error into one line per
// variable.
// startupFailed reports an error of newApp: a configuration error (a
// config.VarError) as the configuration errors of Load are, with exit 2,
// anything else in the log with exit 1.
func startupFailed(err error, log *slog.Logger, stderr io.Writer) int {
	var ve *config.VarError
	if errors.As(err, &ve) {
		fmt.Fprintf(stderr, "email-mcp: the configuration is not valid:\n  %s\n", ve)
		return exitConfig
	}
	log.Error("startup failed", "err", err)
	return exitFailure
}

func configErrorLines(err error) []string {
	if errors.Is(err, config.ErrEnvFile) && !isJoin(err) {
		return []string{err.Error()} // one error, whose Unwrap lists its kinds
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range j.Unwrap() {
			lines = append(lines, configErrorLines(e)...)
		}
		return lines
	}
	return []string{err.Error()}
}

// isJoin reports an errors.Join of several errors (each one a line).
func isJoin(err error) bool {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, e := range j.Unwrap() {
		if e == config.ErrEnvFile || e == config.ErrInvalid {
			return false // a single error that lists its kinds
		}
	}
	return true
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
