package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// TestVersionFlags: --version, -version and -v print the version like the
// version command (--version was an unknown flag, exit 2).
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "-v"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{arg}, nil, &out, &errb); code != exitOK || !strings.HasPrefix(out.String(), "email-mcp ") {
			t.Errorf("email-mcp %s = %d, stdout %q, stderr %q; want 0 and the version", arg, code, out.String(), errb.String())
		}
	}
}

// callREST calls a tool through /mcp/call and returns its result.
func (s *serving) callREST(t *testing.T, name string, args map[string]any) (isError bool, structured map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp/call", bytes.NewReader(body))
	req.Header.Set("X-API-Key", serveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatalf("/mcp/call %s: %v", name, err)
	}
	return res.IsError, res.StructuredContent
}

var (
	bannerPassword  = regexp.MustCompile(`Sandbox IMAP +(\S+) +\(user "([^"]+)", password "([^"]+)"`)
	bannerWorkspace = regexp.MustCompile(`Attachments +(/\S+)/ `)
)

// TestSandboxFirstRun: the banner names the sandbox's IMAP password, and it
// logs in; the sandbox has an attachments workspace of its own (a private
// temporary folder, not the working directory) where the README's example
// works verbatim, removed at exit.
func TestSandboxFirstRun(t *testing.T) {
	t.Setenv("EMAIL_BASE_DIR", "")
	s := startServe(t)
	banner := s.out.String()
	m := bannerPassword.FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the banner names no sandbox IMAP password:\n%s", banner)
	}
	host, port := splitHostPort(m[1])
	c := imap.New(imap.Options{Host: host, Port: port, Username: m[2], Password: m[3], Security: imap.SecurityPlain})
	defer c.Close()
	if err := c.Noop(context.Background()); err != nil {
		t.Errorf("IMAP login with the banner's user %q and password = %v", m[2], err)
	}
	w := bannerWorkspace.FindStringSubmatch(banner)
	if w == nil {
		t.Fatalf("the banner names no attachments workspace:\n%s", banner)
	}
	cwd, _ := os.Getwd()
	if strings.HasPrefix(w[1], cwd) {
		t.Errorf("the sandbox workspace %s is in the working directory", w[1])
	}
	if err := os.WriteFile(filepath.Join(w[1], "uploads", "report.pdf"), []byte("%PDF-1.4 test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	isErr, res := s.callREST(t, "send_email_with_attachments", map[string]any{"to": []string{"someone@example.test"}, "subject": "Report",
		"body": "Attached.", "attachment_paths": []string{"attachments/email/uploads/report.pdf"}})
	if isErr || res["success"] != true {
		t.Errorf("send_email_with_attachments (the README example) = %v", res)
	}
	s.stop(t)
	if _, err := os.Stat(w[1]); !os.IsNotExist(err) {
		t.Errorf("the temporary workspace %s is still there after exit (%v)", w[1], err)
	}
}

// TestSandboxWorkspaceInDataDir: with EMAIL_DATA_DIR the sandbox's
// workspace lives under it and is kept at exit, like the mail.
func TestSandboxWorkspaceInDataDir(t *testing.T) {
	sandboxEnv(t)
	t.Setenv("MCP_API_KEY", serveKey)
	t.Setenv("EMAIL_BASE_DIR", "")
	dir := t.TempDir()
	t.Setenv("EMAIL_DATA_DIR", dir)
	s := startServeKeepEnv(t)
	w := bannerWorkspace.FindStringSubmatch(s.out.String())
	want := filepath.Join(dir, "workspace", "attachments", "email")
	if w == nil || w[1] != want {
		t.Fatalf("workspace in the banner = %v, want %s:\n%s", w, want, s.out.String())
	}
	s.stop(t)
	if _, err := os.Stat(filepath.Join(want, "uploads")); err != nil {
		t.Errorf("the workspace under EMAIL_DATA_DIR is gone after exit: %v", err)
	}
}
