package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/email-mcp/email-mcp/attachments"
)

// printBanner prints, once, what a sandbox user needs: the endpoint, the key
// (only when it was generated for this run), the sandbox's own ports and
// ready-to-paste client settings.
func printBanner(w io.Writer, a *app, base, key string, generated bool, loginLink string) {
	// A configured key is never printed: the shell lines read it from the
	// environment, the JSON ones (which would send "$MCP_API_KEY" as it
	// stands) show a placeholder to replace.
	shownKey, jsonKey := "$MCP_API_KEY", "PASTE-YOUR-MCP_API_KEY"
	keyLine := "from MCP_API_KEY"
	if generated {
		shownKey, jsonKey = key, key
		keyLine = key + "   (generated for this run; set MCP_API_KEY to keep a fixed one)"
	}
	smtpAddr := a.sandbox.SMTPAddr()
	persist := "in memory (set EMAIL_DATA_DIR to keep mail across restarts)"
	if a.cfg.EmailDataDir != "" {
		persist = "stored in " + a.cfg.EmailDataDir
	}
	workspace, kept := "off", ""
	if a.files != nil {
		workspace = filepath.Join(a.baseDir, filepath.FromSlash(attachments.WorkspaceDir)) + string(filepath.Separator)
		switch {
		case a.tempBase != "":
			kept = "temporary: removed on exit; set EMAIL_BASE_DIR or EMAIL_DATA_DIR to keep it"
		case a.cfg.EmailBaseDir != "":
			kept = "EMAIL_BASE_DIR"
		default:
			kept = "kept in EMAIL_DATA_DIR"
		}
	}
	exe := "email-mcp"
	if p, err := os.Executable(); err == nil && !isTempBuild(p) {
		exe = p
	}
	fmt.Fprintf(w, `
email-mcp sandbox is running: a local mail server, nothing is sent to the outside world.

  MCP (Streamable HTTP)  %[1]s/mcp
  MCP (legacy SSE)       %[1]s/sse
  Web inbox              %[15]s
                         (one-time login link, valid 10 min; or sign in at %[1]s/ui with the API key)
  API key                %[2]s
  Sandbox SMTP           %[3]s   (accepts mail for any address; no auth needed)
  Sandbox IMAP           %[4]s   (user "%[11]s", %[12]s)
  Mail is                %[5]s
  Attachments            %[13]s   (%[14]s)
                         put report.pdf in its uploads/ folder, then send it with
                         attachment_paths: ["attachments/email/uploads/report.pdf"];
                         download_attachment saves into downloads/

Claude Code:
  claude mcp add --transport http email %[1]s/mcp --header "X-API-Key: %[6]s"

Cursor (~/.cursor/mcp.json):
  {"mcpServers":{"email":{"url":"%[1]s/mcp","headers":{"X-API-Key":"%[10]s"}}}}

VS Code (.vscode/mcp.json):
  {"servers":{"email":{"type":"http","url":"%[1]s/mcp","headers":{"X-API-Key":"%[10]s"}}}}

Claude Desktop (stdio, claude_desktop_config.json; it starts its own sandbox with its own mailbox):
  {"mcpServers":{"email":{"command":"%[7]s","args":["stdio"]}}}

curl:
  curl -s %[1]s/mcp/call -H "X-API-Key: %[6]s" -H "Content-Type: application/json" \
    -d '{"method":"tools/call","params":{"name":"list_folders","arguments":{"include_counts":true}}}'

Send a test mail into the sandbox:
  python3 -c 'import smtplib; smtplib.SMTP("%[8]s", %[9]s, local_hostname="localhost").sendmail("app@example.test", ["me@example.test"], "From: app@example.test\r\nTo: me@example.test\r\nSubject: hello\r\n\r\nYour code is 123456\r\n")'

`, base, keyLine, smtpAddr, a.sandbox.IMAPAddr(), persist, shownKey, exe, hostOf(smtpAddr), portOf(smtpAddr), jsonKey,
		a.sandbox.Username(), sandboxLogin(a.sandbox.IMAPAddr(), a.sandboxPassword), workspace, kept, loginLink)
}

// sandboxLogin shows the sandbox's generated IMAP password, so that a mail
// client can look into the sandbox, when only this machine can reach it.
func sandboxLogin(imapAddr, password string) string {
	host := hostOf(imapAddr)
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "password not shown: DEV_IMAP_ADDR is not a loopback address"
	}
	return fmt.Sprintf("password %q: generated for this run", password)
}

// isTempBuild reports a binary built by `go run` (in a temp dir), whose path
// is useless to a client config.
func isTempBuild(p string) bool {
	dir := filepath.Dir(p)
	return filepath.HasPrefix(dir, os.TempDir()) || filepath.Base(dir) == "exe"
}

func hostOf(addr string) string { h, _ := splitHostPort(addr); return h }

func portOf(addr string) string { _, p := splitHostPort(addr); return fmt.Sprint(p) }
