package config_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/email-mcp/email-mcp/config"
)

// realAccount is a minimal valid configuration of a real IMAP/SMTP account.
var realAccount = map[string]string{
	"IMAP_HOST":     "imap.example.com",
	"IMAP_USER":     "agent@example.com",
	"IMAP_PASSWORD": "imap-secret-pw",
	"SMTP_HOST":     "smtp.example.com",
}

// with returns a copy of base with the pairs set (a value of "\x00" deletes).
func with(base map[string]string, kv ...string) map[string]string {
	env := maps.Clone(base)
	if env == nil {
		env = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "\x00" {
			delete(env, kv[i])
			continue
		}
		env[kv[i]] = kv[i+1]
	}
	return env
}

// load runs Load with env as the whole environment and no .env file.
func load(t *testing.T, env map[string]string) (*config.Config, error) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	return config.Load(config.LoadOptions{
		Environ: env,
		EnvFile: filepath.Join(t.TempDir(), "absent.env"),
	})
}

// mustLoad is load that fails the test on an error.
func mustLoad(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	c, err := load(t, env)
	if err != nil {
		t.Fatalf("Load() = %v, want nil", err)
	}
	return c
}

// values maps every variable to its printed value, through LogValue.
func values(c *config.Config) map[string]string {
	m := map[string]string{}
	for _, a := range c.LogValue().Group() {
		m[a.Key] = a.Value.String()
	}
	return m
}

// varErrors unpacks the *VarError values of a Load error.
func varErrors(t *testing.T, err error) []*config.VarError {
	t.Helper()
	if !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("Load() error %v does not match ErrInvalid", err)
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Load() error %T is not a joined error", err)
	}
	var out []*config.VarError
	for _, e := range joined.Unwrap() {
		var ve *config.VarError
		if !errors.As(e, &ve) {
			t.Fatalf("joined error %T (%v) is not a *VarError", e, e)
		}
		out = append(out, ve)
	}
	return out
}

// names lists the variable names of errs.
func names(errs []*config.VarError) []string {
	var n []string
	for _, e := range errs {
		n = append(n, e.Name)
	}
	return n
}

// writeFile writes a file in a fresh temporary folder and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
