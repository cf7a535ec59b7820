package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

func TestEnvFile(t *testing.T) {
	const file = `# a comment line
export IMAP_HOST=imap.example.com
IMAP_USER="agent@example.com"   # trailing comment after quotes
IMAP_PASSWORD='pa$Word #1'
SMTP_HOST=smtp.example.com # comment after an unquoted value
DEFAULT_FROM_NAME="Test \"Agent\" Bot"
MCP_SERVER_NAME=from-file
MAX_SEARCH_RESULTS=20
LOG_LEVEL=debug
`
	tests := []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"file only", nil, map[string]string{
			"IMAP_HOST": "imap.example.com", "IMAP_USER": "agent@example.com", "SMTP_HOST": "smtp.example.com",
			"DEFAULT_FROM_NAME": `Test "Agent" Bot`, "MCP_SERVER_NAME": "from-file", "MAX_SEARCH_RESULTS": "20",
		}},
		{"environment wins", map[string]string{"MCP_SERVER_NAME": "from-env", "MAX_SEARCH_RESULTS": "30"},
			map[string]string{"MCP_SERVER_NAME": "from-env", "MAX_SEARCH_RESULTS": "30", "LOG_LEVEL": "debug"}},
		{"empty environment value hides the file and means default",
			map[string]string{"MCP_SERVER_NAME": "", "LOG_LEVEL": " "},
			map[string]string{"MCP_SERVER_NAME": "email-mcp", "LOG_LEVEL": "info", "IMAP_HOST": "imap.example.com"}},
	}
	path := writeFile(t, "my.env", file)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if env == nil {
				env = map[string]string{}
			}
			c, err := config.Load(config.LoadOptions{Environ: env, EnvFile: path, EnvFileExplicit: true})
			if err != nil {
				t.Fatalf("Load() = %v, want nil", err)
			}
			got := values(c)
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("%s = %q, want %q", name, got[name], want)
				}
			}
		})
	}
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.IMAPPassword.Reveal(); got != "pa$Word #1" {
		t.Errorf("single-quoted password = %q, want it verbatim", got)
	}
	if c.Source("IMAP_HOST") != config.SourceFile || c.Source("SMTP_USER") != config.SourceDerived {
		t.Errorf("Source(IMAP_HOST) = %v, Source(SMTP_USER) = %v, want .env file, derived",
			c.Source("IMAP_HOST"), c.Source("SMTP_USER"))
	}
}

func TestEnvFileMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.env")
	tests := []struct {
		name    string
		opts    config.LoadOptions
		wantErr bool
	}{
		{"implicit file missing is fine", config.LoadOptions{EnvFile: missing}, false},
		{"explicit file missing is an error", config.LoadOptions{EnvFile: missing, EnvFileExplicit: true}, true},
		{"a folder is an error", config.LoadOptions{EnvFile: t.TempDir(), EnvFileExplicit: true}, true},
		{"a folder as implicit file is an error too", config.LoadOptions{EnvFile: t.TempDir()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Environ = map[string]string{}
			c, err := config.Load(tt.opts)
			if tt.wantErr {
				if !errors.Is(err, config.ErrEnvFile) || !errors.Is(err, config.ErrInvalid) || c != nil {
					t.Fatalf("Load() = %v, %v, want nil and an ErrEnvFile error", c, err)
				}
				if !strings.Contains(err.Error(), tt.opts.EnvFile) {
					t.Errorf("Error() = %q, want it to name the file", err)
				}
				return
			}
			if err != nil || c.MCPPort != 8420 {
				t.Fatalf("Load() = %v, want defaults and nil", err)
			}
		})
	}
	_, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: missing, EnvFileExplicit: true})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want it to match fs.ErrNotExist", err)
	}
}

func TestEnvFileSyntaxErrorHidesText(t *testing.T) {
	for _, content := range []string{
		"IMAP_PASSWORD=hunter2-secret\nbad line with spaces hunter2-secret\n",
		"IMAP_PASSWORD=\"hunter2-secret\n",
	} {
		path := writeFile(t, "bad.env", content)
		_, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path})
		if !errors.Is(err, config.ErrEnvFile) {
			t.Fatalf("Load(%q) = %v, want ErrEnvFile", content, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Load(%q) error %q shows the file's text", content, err)
		}
	}
}

func TestEnvFileUnknownNames(t *testing.T) {
	path := writeFile(t, ".env", "IMAP_PASWORD=typo\nMCP_PORT=8421\n")
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path})
	if err != nil {
		t.Fatal(err)
	}
	want := "IMAP_PASWORD in the .env file is not an email-mcp variable and is ignored"
	if !contains(c.Warnings(), want) {
		t.Errorf("Warnings() = %q, want %q", c.Warnings(), want)
	}
	for _, w := range c.Warnings() {
		if strings.Contains(w, "typo") {
			t.Errorf("warning %q shows a value", w)
		}
	}
}

// The first " #" of an unquoted value starts the comment (godotenv cut at
// the last one, so a comment holding " #" leaked into the value).
func TestEnvFileCommentStartsAtFirstHash(t *testing.T) {
	path := writeFile(t, ".env", "MCP_SERVER_NAME=bot # name shown to clients # see README\n"+
		"DEFAULT_FROM_NAME=Agent # display name # of sent mail\n")
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if c.MCPServerName != "bot" || c.DefaultFromName != "Agent" {
		t.Errorf("MCP_SERVER_NAME = %q, DEFAULT_FROM_NAME = %q; want \"bot\", \"Agent\" (the rest is a comment)",
			c.MCPServerName, c.DefaultFromName)
	}
}

// A .env saved by an editor that writes a UTF-8 byte order mark.
func TestEnvFileWithBOM(t *testing.T) {
	path := writeFile(t, ".env", "\ufeff# settings\nMCP_SERVER_NAME=bom-test\n")
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatalf("Load(.env with BOM) = %v", err)
	}
	if c.MCPServerName != "bom-test" {
		t.Errorf("MCP_SERVER_NAME = %q, want bom-test", c.MCPServerName)
	}
}

// Double-quoted values take \" escapes (TestEnvFile), also at the end.
func TestEnvFileEscapedQuoteAtEnd(t *testing.T) {
	path := writeFile(t, ".env", `DEFAULT_FROM_NAME="The \"Agent\""`+"\n")
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if c.DefaultFromName != `The "Agent"` {
		t.Errorf("DEFAULT_FROM_NAME = %q, want %q", c.DefaultFromName, `The "Agent"`)
	}
}

// doc.go: "put a password with $, # or spaces in single quotes" (verbatim).
func TestSingleQuotedPasswordEndingInBackslash(t *testing.T) {
	path := writeFile(t, ".env", "IMAP_PASSWORD='pa$$ #x\\'\nMCP_SERVER_NAME=after\n")
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if c.IMAPPassword.Reveal() != `pa$$ #x\` || c.MCPServerName != "after" {
		t.Errorf("IMAP_PASSWORD wrong, MCP_SERVER_NAME = %q", c.MCPServerName)
	}
}

// A copy of .env.example with IMAP_SSL=false connects to 143, as its
// comments say (it set IMAP_PORT=993 itself).
func TestEnvExampleIMAPSSLFalseGives143(t *testing.T) {
	raw, err := os.ReadFile("../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	set := func(s, name, value string) string {
		return regexp.MustCompile(`(?m)^`+name+`=.*$`).ReplaceAllString(s, name+"="+value)
	}
	s := string(raw)
	s = set(s, "IMAP_HOST", "imap.example.com")
	s = set(s, "IMAP_USER", "agent@example.com")
	s = set(s, "IMAP_PASSWORD", "pw")
	s = set(s, "SMTP_HOST", "smtp.example.com")
	s = set(s, "IMAP_SSL", "false")
	path := writeFile(t, ".env", s)
	c, err := config.Load(config.LoadOptions{Environ: map[string]string{}, EnvFile: path, EnvFileExplicit: true})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if c.IMAPPort != 143 {
		t.Errorf("IMAP_PORT = %d after setting IMAP_SSL=false in a copy of .env.example, want 143; warnings: %q", c.IMAPPort, c.Warnings())
	}
}
