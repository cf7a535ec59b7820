package config_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

// TestEnvExample keeps .env.example complete and loadable: every variable is
// there, and the file as shipped is a valid (sandbox) configuration.
func TestEnvExample(t *testing.T) {
	const path = "../.env.example"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// commented names the systemd unit sets with Environment=: a line in the
	// env file, even empty, would override it.
	commented := map[string]bool{"EMAIL_BASE_DIR": true}
	for _, name := range config.Names() {
		prefix := `(?m)^`
		if commented[name] {
			prefix = `(?m)^#`
		}
		if !regexp.MustCompile(prefix + name + `=`).Match(raw) {
			t.Errorf(".env.example lacks %s%s=", prefix[4:], name)
		}
	}
	unit, err := os.ReadFile("../email-mcp.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^Environment=([A-Z_]+)=`).FindAllSubmatch(unit, -1) {
		if regexp.MustCompile(`(?m)^` + string(m[1]) + `=`).Match(raw) {
			t.Errorf(".env.example sets %s, which overrides the unit's Environment=%s (EnvironmentFile wins)", m[1], m[1])
		}
	}
	c, err := config.Load(config.LoadOptions{EnvFile: path, EnvFileExplicit: true, Environ: map[string]string{}})
	if err != nil {
		t.Fatalf("Load(.env.example) = %v", err)
	}
	if !c.Sandbox() {
		t.Error(".env.example should load as the sandbox configuration")
	}
}
