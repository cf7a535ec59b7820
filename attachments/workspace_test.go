package attachments_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
)

func TestOpenRefusesBadBaseDir(t *testing.T) {
	tests := []struct {
		base string
		want error
	}{
		{"", attachments.ErrNotConfigured},
		{"relative-email-base", attachments.ErrInvalidPath},
		{"./relative-email-base", attachments.ErrInvalidPath},
	}
	for _, tc := range tests {
		ws, err := attachments.Open(attachments.Options{BaseDir: tc.base})
		if !errors.Is(err, tc.want) {
			t.Errorf("Open(%q) = %v, want %v", tc.base, err, tc.want)
		}
		if ws != nil {
			ws.Close()
			t.Errorf("Open(%q) returned a workspace, want nil", tc.base)
		}
	}
	if _, err := os.Lstat("relative-email-base"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(relative-email-base) = %v: Open created a folder in the working directory", err)
	}
}

func TestOpenRefusesFolderLinkedOut(t *testing.T) {
	for _, folder := range []string{"uploads", "downloads"} {
		base, outside := t.TempDir(), t.TempDir()
		if err := os.MkdirAll(wsDir(base), 0o700); err != nil {
			t.Fatal(err)
		}
		symlink(t, outside, wsDir(base), folder)
		if ws, err := attachments.Open(attachments.Options{BaseDir: base}); !errors.Is(err, attachments.ErrOutsideWorkspace) {
			if ws != nil {
				ws.Close()
			}
			t.Errorf("Open with %s linked to %s = %v, want ErrOutsideWorkspace", folder, outside, err)
		}
	}
}

// TestOpenRefusesFolderLinkedInside: a folder linked to another place in
// the workspace folder (uploads -> . would serve attachments/email/ itself)
// is refused too.
func TestOpenRefusesFolderLinkedInside(t *testing.T) {
	for _, link := range []struct{ folder, target string }{{"uploads", "."}, {"downloads", "uploads"}, {"uploads", "other"}} {
		base := t.TempDir()
		for _, dir := range []string{"uploads", "downloads", "other"} {
			if dir != link.folder {
				if err := os.MkdirAll(filepath.Join(wsDir(base), dir), 0o700); err != nil {
					t.Fatal(err)
				}
			}
		}
		symlink(t, link.target, wsDir(base), link.folder)
		if ws, err := attachments.Open(attachments.Options{BaseDir: base}); !errors.Is(err, attachments.ErrOutsideWorkspace) {
			if ws != nil {
				ws.Close()
			}
			t.Errorf("Open with %s -> %s = %v, want ErrOutsideWorkspace", link.folder, link.target, err)
		}
	}
}

func TestOpenRefusesFolderThatIsAFile(t *testing.T) {
	base := t.TempDir()
	writeFile(t, wsDir(base), "uploads", "not a folder")
	if ws, err := attachments.Open(attachments.Options{BaseDir: base}); err == nil {
		ws.Close()
		t.Error("Open with uploads as a regular file = nil, want an error")
	}
}

func TestOpenKeepsExistingFiles(t *testing.T) {
	base := t.TempDir()
	writeFile(t, wsDir(base), "uploads/ok.pdf", okContent)
	ws, err := attachments.Open(attachments.Options{BaseDir: base + "/./"})
	if err != nil {
		t.Fatalf("Open = %v, want nil", err)
	}
	defer ws.Close()
	if f, err := ws.Stat(filepath.Join(base, "attachments/email/uploads/ok.pdf")); err != nil || f.Size != int64(len(okContent)) {
		t.Errorf("Stat(absolute ok.pdf) = %+v, %v; want size %d", f, err, len(okContent))
	}
	if ws.MaxFileSize() != attachments.DefaultMaxFileSize {
		t.Errorf("MaxFileSize() = %d, want default %d", ws.MaxFileSize(), attachments.DefaultMaxFileSize)
	}
}

func TestClosedWorkspaceFails(t *testing.T) {
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, wsDir(base), "uploads/ok.pdf", okContent)
	if err := ws.Close(); err != nil {
		t.Fatalf("Close() = %v, want nil", err)
	}
	if _, err := ws.Stat("uploads/ok.pdf"); err == nil {
		t.Error("Stat after Close = nil, want an error")
	}
	if _, err := ws.Create("x.txt", -1); err == nil {
		t.Error("Create after Close = nil, want an error")
	}
}
