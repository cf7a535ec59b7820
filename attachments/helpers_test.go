package attachments_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
)

// secret is the content of every file placed where no path may reach.
const secret = "SECRET"

// okContent is the content of uploads/ok.pdf.
const okContent = "%PDF-1.4 fine"

// newWorkspace opens a workspace in a fresh BaseDir and closes it at the end.
func newWorkspace(t testing.TB, maxSize int64) (*attachments.Workspace, string) {
	t.Helper()
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base, MaxFileSize: maxSize})
	if err != nil {
		t.Fatalf("Open(%q) = %v, want nil", base, err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, base
}

// wsDir is BaseDir/attachments/email.
func wsDir(base string) string { return filepath.Join(base, "attachments", "email") }

// writeFile writes content to base/rel, creating parents.
func writeFile(t testing.TB, base, rel, content string) {
	t.Helper()
	p := filepath.Join(base, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// symlink creates base/rel pointing to target.
func symlink(t testing.TB, target, base, rel string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// sentinels are the errors Stat and Open may return for a refused path.
var sentinels = []error{
	attachments.ErrInvalidPath, attachments.ErrOutsideWorkspace, attachments.ErrNotFound,
	attachments.ErrNotRegularFile, attachments.ErrTooLarge,
}

// isSentinel reports whether err matches one of sentinels.
func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// listDir returns the names in dir.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
