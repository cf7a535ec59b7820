//go:build unix

package attachments_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
)

// hostile lists paths that must never open. {base} is BaseDir and
// {outside} a folder next to it; see newHostileWorkspace for the files.
var hostile = []struct {
	path string
	want error
}{
	// dot segments
	{"../x", attachments.ErrOutsideWorkspace},
	{"../.env", attachments.ErrOutsideWorkspace},
	{"uploads/../../x", attachments.ErrOutsideWorkspace},
	{"uploads/./../x", attachments.ErrOutsideWorkspace},
	{"uploads//../secret.txt", attachments.ErrOutsideWorkspace},
	{"uploads/../uploads/ok.pdf", attachments.ErrOutsideWorkspace},
	{"uploads/ok.pdf/..", attachments.ErrOutsideWorkspace},
	{"attachments/email/uploads/../../../.env", attachments.ErrOutsideWorkspace},
	{"attachments/../.env", attachments.ErrOutsideWorkspace},
	{"./.env", attachments.ErrOutsideWorkspace},
	// absolute
	{"/etc/passwd", attachments.ErrOutsideWorkspace},
	{"//etc/passwd", attachments.ErrOutsideWorkspace},
	{"/proc/self/environ", attachments.ErrOutsideWorkspace},
	{"/dev/zero", attachments.ErrOutsideWorkspace},
	{"{base}", attachments.ErrOutsideWorkspace},
	{"{base}/.env", attachments.ErrOutsideWorkspace},
	{"{base}/secret.txt", attachments.ErrOutsideWorkspace},
	{"{base}/attachments/email/secret.txt", attachments.ErrOutsideWorkspace},
	{"{base}/attachments/email/uploads/../../../.env", attachments.ErrOutsideWorkspace},
	{"{base}/attachments/email/uploads/linkout", attachments.ErrOutsideWorkspace},
	{"{outside}/secret.txt", attachments.ErrOutsideWorkspace},
	// encoded: never decoded
	{"%2e%2e/x", attachments.ErrOutsideWorkspace},
	{"%2e%2e/.env", attachments.ErrOutsideWorkspace},
	{"..%2f..%2fetc/passwd", attachments.ErrOutsideWorkspace},
	{"..%252f..%252f.env", attachments.ErrOutsideWorkspace},
	{"uploads/%2e%2e/%2e%2e/secret.txt", attachments.ErrNotFound},
	{"uploads/..%2f..%2fsecret.txt", attachments.ErrOutsideWorkspace}, // starts with a dot
	{"uploads/%2e%2e%2fsecret.txt", attachments.ErrNotFound},
	{"file:///etc/passwd", attachments.ErrOutsideWorkspace},
	{"~/.ssh/id_rsa", attachments.ErrOutsideWorkspace},
	{"$HOME/.env", attachments.ErrOutsideWorkspace},
	// NUL and other control characters, invalid UTF-8, invisible characters
	{"uploads/a\x00.pdf", attachments.ErrInvalidPath},
	{"uploads/ok.pdf\x00.txt", attachments.ErrInvalidPath},
	{"uploads/a\nb.pdf", attachments.ErrInvalidPath},
	{"uploads/\x7f", attachments.ErrInvalidPath},
	{"uploads/\u0085ok.pdf", attachments.ErrInvalidPath},
	{"uploads/\xff.pdf", attachments.ErrInvalidPath},
	{"uploads/\u202eexe.pdf", attachments.ErrInvalidPath},
	{"uploads/\u200b.env", attachments.ErrInvalidPath},
	// backslashes
	{`..\..\x`, attachments.ErrOutsideWorkspace},
	{`..\.env`, attachments.ErrOutsideWorkspace},
	{`uploads\..\..\secret.txt`, attachments.ErrOutsideWorkspace},
	{`C:\Windows\win.ini`, attachments.ErrOutsideWorkspace},
	{`\\server\share\x`, attachments.ErrOutsideWorkspace},
	// unicode look-alikes are plain names
	{"uploads/\u2024\u2024/secret.txt", attachments.ErrNotFound},
	{"\uff0e\uff0e/x", attachments.ErrOutsideWorkspace},
	{"uploads/\uff0e\uff0e/\uff0e\uff0e/secret.txt", attachments.ErrNotFound},
	{"uploads/\u2215etc\u2215passwd", attachments.ErrNotFound},
	// hidden files, which exist
	{".env", attachments.ErrOutsideWorkspace},
	{".git/config", attachments.ErrOutsideWorkspace},
	{"uploads/.env", attachments.ErrOutsideWorkspace},
	{"uploads/.git/config", attachments.ErrOutsideWorkspace},
	{"downloads/.ssh/id_rsa", attachments.ErrOutsideWorkspace},
	{"attachments/.env", attachments.ErrOutsideWorkspace},
	// symlinks, special files, hard links
	{"uploads/linkout", attachments.ErrOutsideWorkspace},
	{"uploads/abslink", attachments.ErrOutsideWorkspace},
	{"uploads/dirout/secret.txt", attachments.ErrOutsideWorkspace},
	{"uploads/absdir/secret.txt", attachments.ErrOutsideWorkspace},
	{"uploads/abslink/../ok.pdf", attachments.ErrOutsideWorkspace},
	{"uploads/absin", attachments.ErrOutsideWorkspace}, // absolute, though it points inside
	{"downloads/up", attachments.ErrOutsideWorkspace},
	{"uploads/loop1", attachments.ErrOutsideWorkspace},
	{"uploads/self", attachments.ErrOutsideWorkspace},
	{"uploads/fifo", attachments.ErrNotRegularFile},
	{"uploads/sub", attachments.ErrNotRegularFile},
	{"uploads/hard", attachments.ErrOutsideWorkspace},
	{"uploads/notes.txt", attachments.ErrOutsideWorkspace},      // an ordinary name linked to .env
	{"uploads/repo/config", attachments.ErrOutsideWorkspace},    // linked to .git
	{"uploads/sub/dotenv", attachments.ErrOutsideWorkspace},     // ../.env
	{"uploads/sublink/dotenv", attachments.ErrOutsideWorkspace}, // through a linked folder
	// the workspace itself and its folders
	{"attachments/email/x", attachments.ErrOutsideWorkspace},
	{"attachments/email/secret.txt", attachments.ErrOutsideWorkspace},
	{"attachments/email", attachments.ErrOutsideWorkspace},
	{"Uploads/ok.pdf", attachments.ErrOutsideWorkspace},
	{"", attachments.ErrInvalidPath},
	{".", attachments.ErrOutsideWorkspace},
	{"uploads", attachments.ErrNotRegularFile},
	{"downloads/", attachments.ErrNotRegularFile},
	{"{base}/attachments/email/uploads", attachments.ErrNotRegularFile},
	// missing, too long
	{"uploads/missing.pdf", attachments.ErrNotFound},
	{"uploads/ok.pdf/x", attachments.ErrNotFound},
	{"uploads/" + strings.Repeat("a/", 2100) + "x", attachments.ErrInvalidPath},
	{"uploads/" + strings.Repeat("a", 256), attachments.ErrInvalidPath},
}

// newHostileWorkspace builds a workspace with secrets outside uploads/ and
// downloads/ and every kind of trap inside them. It returns the workspace,
// BaseDir and the outside folder.
func newHostileWorkspace(t testing.TB) (*attachments.Workspace, string, string) {
	t.Helper()
	ws, base := newWorkspace(t, 1<<20)
	outside := t.TempDir()
	for _, rel := range []string{".env", "secret.txt", "attachments/.env", "attachments/email/secret.txt",
		"attachments/email/uploads/.env", "attachments/email/uploads/.git/config",
		"attachments/email/downloads/.ssh/id_rsa"} {
		writeFile(t, base, rel, secret)
	}
	writeFile(t, outside, "secret.txt", secret)
	writeFile(t, base, "attachments/email/uploads/ok.pdf", okContent)
	writeFile(t, base, "attachments/email/uploads/sub/inner.txt", "inner")
	writeFile(t, base, "attachments/email/downloads/saved.txt", "saved")
	up := "attachments/email/uploads/"
	symlink(t, "../../../secret.txt", base, up+"linkout")
	symlink(t, filepath.Join(outside, "secret.txt"), base, up+"abslink")
	symlink(t, "../../..", base, up+"dirout")
	symlink(t, base, base, up+"absdir")
	symlink(t, "loop2", base, up+"loop1")
	symlink(t, "loop1", base, up+"loop2")
	symlink(t, "self", base, up+"self")
	symlink(t, "ok.pdf", base, up+"inlink")
	symlink(t, filepath.Join(base, up+"ok.pdf"), base, up+"absin")
	symlink(t, "../uploads/ok.pdf", base, "attachments/email/downloads/up")
	symlink(t, ".env", base, up+"notes.txt")
	symlink(t, ".git", base, up+"repo")
	symlink(t, "../.env", base, up+"sub/dotenv")
	symlink(t, "sub", base, up+"sublink")
	symlink(t, "../ok.pdf", base, up+"sub/okup")
	if err := syscall.Mkfifo(filepath.Join(base, up+"fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(base, "secret.txt"), filepath.Join(base, up+"hard")); err != nil {
		t.Fatal(err)
	}
	return ws, base, outside
}

// expand replaces {base} and {outside} in a table path.
func expand(p, base, outside string) string {
	return strings.NewReplacer("{base}", base, "{outside}", outside).Replace(p)
}

func TestHostilePathsRefused(t *testing.T) {
	ws, base, outside := newHostileWorkspace(t)
	if len(hostile) < 40 {
		t.Fatalf("hostile table has %d rows, want at least 40", len(hostile))
	}
	for _, tc := range hostile {
		p := expand(tc.path, base, outside)
		if f, err := ws.Stat(p); !errors.Is(err, tc.want) {
			t.Errorf("Stat(%q) = %+v, %v; want %v", tc.path, f, err, tc.want)
		} else if !strings.Contains(p, base) && strings.Contains(err.Error(), base) {
			t.Errorf("Stat(%q) error %q names BaseDir", tc.path, err)
		}
		f, rc, err := ws.Open(p)
		if err == nil {
			b, _ := io.ReadAll(rc)
			rc.Close()
			t.Errorf("Open(%q) = %+v with %q, want %v", tc.path, f, b, tc.want)
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("Open(%q) = %v, want %v", tc.path, err, tc.want)
		}
	}
}

func TestAllowedPaths(t *testing.T) {
	ws, base, _ := newHostileWorkspace(t)
	const okPath = "attachments/email/uploads/ok.pdf"
	tests := []struct {
		path, wantPath, wantContent string
	}{
		{"uploads/ok.pdf", okPath, okContent},
		{okPath, okPath, okContent},
		{"{base}/" + okPath, okPath, okContent},
		{"./uploads/ok.pdf", okPath, okContent},
		{"uploads//ok.pdf", okPath, okContent},
		{`uploads\ok.pdf`, okPath, okContent},
		{"uploads/inlink", "attachments/email/uploads/inlink", okContent},
		{"uploads/sub/inner.txt", "attachments/email/uploads/sub/inner.txt", "inner"},
		{"uploads/sublink/inner.txt", "attachments/email/uploads/sublink/inner.txt", "inner"},
		{"uploads/sublink/okup", "attachments/email/uploads/sublink/okup", okContent},
		{"downloads/saved.txt", "attachments/email/downloads/saved.txt", "saved"},
		{"attachments/email/downloads/saved.txt", "attachments/email/downloads/saved.txt", "saved"},
	}
	for _, tc := range tests {
		p := expand(tc.path, base, "")
		st, err := ws.Stat(p)
		if err != nil || st.Path != tc.wantPath || st.Size != int64(len(tc.wantContent)) {
			t.Errorf("Stat(%q) = %+v, %v; want path %q size %d", tc.path, st, err, tc.wantPath, len(tc.wantContent))
		}
		f, rc, err := ws.Open(p)
		if err != nil {
			t.Errorf("Open(%q) = %v, want nil", tc.path, err)
			continue
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != tc.wantContent || f.Path != tc.wantPath {
			t.Errorf("Open(%q) = %+v reading %q, %v; want %q at %q", tc.path, f, b, err, tc.wantContent, tc.wantPath)
		}
	}
}

// FuzzResolve checks that Stat and Open give an error or a file whose real,
// symlink-free location is inside uploads/ or downloads/, and never a secret.
func FuzzResolve(f *testing.F) {
	ws, base, outside := newHostileWorkspace(f)
	for _, tc := range hostile {
		f.Add(expand(tc.path, base, outside))
	}
	f.Add("uploads/ok.pdf")
	f.Add("attachments/email/downloads/saved.txt")
	f.Add(base + "/attachments/email/uploads/inlink")
	f.Fuzz(func(t *testing.T, p string) {
		st, err := ws.Stat(p)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("Stat(%q) = %v, want one of the sentinel errors", p, err)
			}
		} else {
			checkInside(t, base, st.Path)
		}
		f, rc, err := ws.Open(p)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("Open(%q) = %v, want one of the sentinel errors", p, err)
			}
			return
		}
		defer rc.Close()
		checkInside(t, base, f.Path)
		if b, err := io.ReadAll(rc); err != nil || strings.Contains(string(b), secret) {
			t.Fatalf("Open(%q) read %q, %v; want no secret", p, b, err)
		}
	})
}

// checkInside fails unless rel (relative to base) really lies inside
// uploads/ or downloads/ once every symlink is evaluated.
func checkInside(t *testing.T, base, rel string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("EvalSymlinks(%q) = %v", rel, err)
	}
	for _, folder := range []string{"uploads", "downloads"} {
		root, err := filepath.EvalSymlinks(filepath.Join(wsDir(base), folder))
		if err != nil {
			t.Fatal(err)
		}
		if r, err := filepath.Rel(root, real); err == nil && filepath.IsLocal(r) {
			return
		}
	}
	t.Fatalf("path %q resolves to %q, outside uploads/ and downloads/", rel, real)
}
