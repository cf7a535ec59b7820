package attachments_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
)

// download writes content to a new download of name and commits it.
func download(t *testing.T, ws *attachments.Workspace, name, content string) attachments.File {
	t.Helper()
	d, err := ws.Create(name, int64(len(content)))
	if err != nil {
		t.Fatalf("Create(%q) = %v, want nil", name, err)
	}
	defer d.Abort()
	if _, err := io.WriteString(d, content); err != nil {
		t.Fatalf("Write(%q) = %v, want nil", name, err)
	}
	f, err := d.Commit()
	if err != nil {
		t.Fatalf("Commit(%q) = %v, want nil", name, err)
	}
	return f
}

// readDownload reads downloads/name directly from disk.
func readDownload(t *testing.T, base, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wsDir(base), "downloads", name))
	if err != nil {
		t.Fatalf("read downloads/%s: %v", name, err)
	}
	return string(b)
}

func TestCreateNeverOverwrites(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	writeFile(t, wsDir(base), "downloads/report.pdf", "existing")
	want := map[string]string{"report.pdf": "existing"}
	for i := 1; i <= 3; i++ {
		f := download(t, ws, "report.pdf", fmt.Sprint("copy ", i))
		wantName := fmt.Sprintf("report (%d).pdf", i)
		if f.Name != wantName || f.Path != "attachments/email/downloads/"+wantName || f.Size != 6 {
			t.Errorf("download %d = %+v, want name %q size 6", i, f, wantName)
		}
		want[wantName] = fmt.Sprint("copy ", i)
	}
	for name, content := range want {
		if got := readDownload(t, base, name); got != content {
			t.Errorf("downloads/%s = %q, want %q", name, got, content)
		}
	}
	if got := listDir(t, filepath.Join(wsDir(base), "downloads")); len(got) != len(want) {
		t.Errorf("downloads/ holds %q, want %d files", got, len(want))
	}
}

func TestCreateConcurrentSameName(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	const n = 10
	files := make([]attachments.File, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, err := ws.Create("same.txt", -1)
			if err != nil {
				errs[i] = err
				return
			}
			defer d.Abort()
			if _, err := fmt.Fprintf(d, "writer %d", i); err != nil {
				errs[i] = err
				return
			}
			files[i], errs[i] = d.Commit()
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, f := range files {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if seen[f.Name] {
			t.Errorf("writer %d got name %q twice", i, f.Name)
		}
		seen[f.Name] = true
		if got, want := readDownload(t, base, f.Name), fmt.Sprint("writer ", i); got != want {
			t.Errorf("downloads/%s = %q, want %q", f.Name, got, want)
		}
	}
	if got := listDir(t, filepath.Join(wsDir(base), "downloads")); len(got) != n {
		t.Errorf("downloads/ holds %q, want %d files and no temporary ones", got, n)
	}
}

func TestCreateSizeLimit(t *testing.T) {
	ws, base := newWorkspace(t, 100)
	downloads := filepath.Join(wsDir(base), "downloads")

	if _, err := ws.Create("big.bin", 101); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("Create(size 101) = %v, want ErrTooLarge", err)
	}
	d, err := ws.Create("big.bin", -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Write(make([]byte, 60)); err != nil {
		t.Fatalf("Write(60 bytes) = %v, want nil", err)
	}
	if _, err := d.Write(make([]byte, 41)); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("Write(41 more bytes) = %v, want ErrTooLarge", err)
	}
	if got := listDir(t, downloads); len(got) != 0 {
		t.Errorf("after ErrTooLarge downloads/ holds %q, want nothing", got)
	}
	if _, err := d.Commit(); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("Commit() after ErrTooLarge = %v, want ErrTooLarge", err)
	}
	if err := d.Abort(); err != nil {
		t.Errorf("Abort() after ErrTooLarge = %v, want nil", err)
	}
	if f := download(t, ws, "exact.bin", strings.Repeat("x", 100)); f.Size != 100 {
		t.Errorf("download of exactly the limit = %+v, want size 100", f)
	}
	if got := listDir(t, downloads); !slices.Equal(got, []string{"exact.bin"}) {
		t.Errorf("downloads/ holds %q, want [exact.bin]", got)
	}
}

func TestAbort(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	downloads := filepath.Join(wsDir(base), "downloads")
	d, err := ws.Create("gone.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(d, "partial")
	if got := listDir(t, downloads); len(got) != 1 || !strings.HasPrefix(got[0], ".") {
		t.Errorf("while writing downloads/ holds %q, want one hidden temporary file", got)
	}
	if err := d.Abort(); err != nil {
		t.Errorf("Abort() = %v, want nil", err)
	}
	if got := listDir(t, downloads); len(got) != 0 {
		t.Errorf("after Abort downloads/ holds %q, want nothing", got)
	}
	if _, err := d.Commit(); !errors.Is(err, attachments.ErrClosed) {
		t.Errorf("Commit() after Abort = %v, want ErrClosed", err)
	}
	if _, err := d.Write([]byte("x")); !errors.Is(err, attachments.ErrClosed) {
		t.Errorf("Write() after Abort = %v, want ErrClosed", err)
	}

	f := download(t, ws, "kept.txt", "kept") // its deferred Abort runs after Commit
	if got := readDownload(t, base, f.Name); got != "kept" {
		t.Errorf("after Commit then Abort downloads/%s = %q, want %q", f.Name, got, "kept")
	}
}

func TestCreatePermissions(t *testing.T) {
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(parent, "new", "base")
	ws, err := attachments.Open(attachments.Options{BaseDir: base})
	if err != nil {
		t.Fatalf("Open(%q) = %v, want nil", base, err)
	}
	defer ws.Close()
	f := download(t, ws, "p.txt", "x")

	want := []struct {
		path string
		mode os.FileMode
	}{
		{parent, 0o755}, // existed before: left alone
		{filepath.Join(parent, "new"), 0o700},
		{base, 0o700},
		{filepath.Join(base, "attachments"), 0o700},
		{wsDir(base), 0o700},
		{filepath.Join(wsDir(base), "uploads"), 0o700},
		{filepath.Join(wsDir(base), "downloads"), 0o700},
		{filepath.Join(base, filepath.FromSlash(f.Path)), 0o600},
	}
	for _, w := range want {
		fi, err := os.Stat(w.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != w.mode {
			t.Errorf("mode of %s = %v, want %v", w.path, fi.Mode().Perm(), w.mode)
		}
	}
}

func TestCreateSanitizesName(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	tests := []struct{ in, want string }{
		{"../../.env", "env"},
		{`..\..\secret.txt`, "secret.txt"},
		{"CON.txt", "_CON.txt"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"", "attachment.bin"},
	}
	for _, tc := range tests {
		if f := download(t, ws, tc.in, "data"); f.Name != tc.want {
			t.Errorf("Create(%q) committed %q, want %q", tc.in, f.Name, tc.want)
		}
	}
	if got := listDir(t, base); !slices.Equal(got, []string{"attachments"}) {
		t.Errorf("BaseDir holds %q, want only attachments", got)
	}
}

func TestCommitLongNameKeepsLimit(t *testing.T) {
	ws, _ := newWorkspace(t, 1<<20)
	name := strings.Repeat("n", 300) + ".pdf"
	first := download(t, ws, name, "1")
	second := download(t, ws, name, "2")
	if len(first.Name) != 255 || len(second.Name) > 255 || !strings.HasSuffix(second.Name, " (1).pdf") {
		t.Errorf("names %q (%d bytes), %q (%d bytes); want 255 bytes each, the second ending in \" (1).pdf\"",
			first.Name, len(first.Name), second.Name, len(second.Name))
	}
}

func TestCommitNameTaken(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	writeFile(t, wsDir(base), "downloads/a.txt", "0")
	for i := 1; i < 1000; i++ {
		writeFile(t, wsDir(base), fmt.Sprintf("downloads/a (%d).txt", i), "")
	}
	d, err := ws.Create("a.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Commit(); !errors.Is(err, attachments.ErrNameTaken) {
		t.Errorf("Commit() with 1000 names taken = %v, want ErrNameTaken", err)
	}
	if got := listDir(t, filepath.Join(wsDir(base), "downloads")); len(got) != 1000 {
		t.Errorf("downloads/ holds %d files, want 1000 (temporary file removed)", len(got))
	}
	if got := readDownload(t, base, "a.txt"); got != "0" {
		t.Errorf("downloads/a.txt = %q, want %q", got, "0")
	}
}

func TestCommitContentType(t *testing.T) {
	ws, _ := newWorkspace(t, 1<<20)
	tests := []struct{ name, content, want string }{
		{"notes.txt", "hello", "text/plain; charset=utf-8"},
		{"scan", "%PDF-1.7\n...", "application/pdf"},
		{"blob", "\x00\x01\x02", "application/octet-stream"},
	}
	for _, tc := range tests {
		if f := download(t, ws, tc.name, tc.content); f.ContentType != tc.want {
			t.Errorf("download %q: ContentType = %q, want %q", tc.name, f.ContentType, tc.want)
		}
	}
}

// TestPartialDownloadHidden: a download in progress is a hidden file; a
// symlink with an ordinary name that points at it does not make it
// readable.
func TestPartialDownloadHidden(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	d, err := ws.Create("inflight.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	if _, err := io.WriteString(d, "PARTIAL"); err != nil {
		t.Fatal(err)
	}
	var tmp string
	for _, n := range listDir(t, filepath.Join(wsDir(base), "downloads")) {
		if strings.HasPrefix(n, ".") {
			tmp = n
		}
	}
	if tmp == "" {
		t.Fatal("no temporary file in downloads/")
	}
	symlink(t, tmp, base, "attachments/email/downloads/peek.txt")
	if f, err := ws.Stat("downloads/peek.txt"); !errors.Is(err, attachments.ErrOutsideWorkspace) {
		t.Errorf("Stat(downloads/peek.txt -> %s) = %+v, %v; want ErrOutsideWorkspace", tmp, f, err)
	}
	if f, _, err := ws.Open("downloads/peek.txt"); !errors.Is(err, attachments.ErrOutsideWorkspace) {
		t.Errorf("Open(downloads/peek.txt -> %s) = %+v, %v; want ErrOutsideWorkspace", tmp, f, err)
	}
}

// TestCloseAbortsDownloads: a download still running when the workspace
// closes (a shutdown that did not wait for it) is aborted by Close: its
// hidden temporary file, which nothing could see or remove later, is gone,
// and Commit fails afterwards.
func TestCloseAbortsDownloads(t *testing.T) {
	for _, commitAfter := range []bool{false, true} {
		base := t.TempDir()
		ws, err := attachments.Open(attachments.Options{BaseDir: base})
		if err != nil {
			t.Fatal(err)
		}
		d, err := ws.Create("a.txt", -1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(d, "partial"); err != nil {
			t.Fatal(err)
		}
		if err := ws.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
		if commitAfter {
			if f, err := d.Commit(); err == nil {
				t.Errorf("Commit after Close = %+v, want an error", f)
			}
		}
		if err := d.Abort(); err != nil {
			t.Errorf("Abort after Close = %v, want nil (already aborted)", err)
		}
		if left := listDir(t, filepath.Join(wsDir(base), "downloads")); len(left) != 0 {
			t.Errorf("commitAfter=%v: downloads/ holds %q after Close", commitAfter, left)
		}
	}
}
