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
	for _, name := range config.Names() {
		if !regexp.MustCompile(`(?m)^` + name + `=`).Match(raw) {
			t.Errorf(".env.example lacks %s=", name)
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
