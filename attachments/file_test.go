package attachments_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
)

// TestOpenStreams shows that Open does not read the file whole: bytes changed
// on disk after Open, past the first block, are the ones the reader returns.
func TestOpenStreams(t *testing.T) {
	ws, base := newWorkspace(t, 8<<20)
	const size = 4 << 20
	p := filepath.Join(wsDir(base), "uploads", "big.bin")
	writeFile(t, wsDir(base), "uploads/big.bin", strings.Repeat("a", size))

	f, rc, err := ws.Open("uploads/big.bin")
	if err != nil {
		t.Fatalf("Open = %v, want nil", err)
	}
	defer rc.Close()
	if f.Size != size {
		t.Errorf("Size = %d, want %d", f.Size, size)
	}
	disk, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := disk.WriteAt([]byte("TAIL"), size-4); err != nil {
		t.Fatal(err)
	}
	disk.Close()

	got, err := io.ReadAll(rc)
	if err != nil || len(got) != size || !bytes.HasSuffix(got, []byte("aTAIL")) {
		t.Errorf("read %d bytes ending %q, %v; want %d ending \"aTAIL\"", len(got), got[max(0, len(got)-5):], err, size)
	}
}

func TestOpenSizeLimit(t *testing.T) {
	ws, base := newWorkspace(t, 10)
	writeFile(t, wsDir(base), "uploads/big.txt", strings.Repeat("x", 11))
	writeFile(t, wsDir(base), "uploads/exact.txt", strings.Repeat("x", 10))
	if _, err := ws.Stat("uploads/big.txt"); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("Stat(11 bytes, limit 10) = %v, want ErrTooLarge", err)
	}
	if _, _, err := ws.Open("uploads/big.txt"); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("Open(11 bytes, limit 10) = %v, want ErrTooLarge", err)
	}
	_, rc, err := ws.Open("uploads/exact.txt")
	if err != nil {
		t.Fatalf("Open(10 bytes, limit 10) = %v, want nil", err)
	}
	defer rc.Close()
	// The file grows after the check: the reader stops at the limit.
	f, err := os.OpenFile(filepath.Join(wsDir(base), "uploads", "exact.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat("y", 1000))
	f.Close()
	if b, err := io.ReadAll(rc); !errors.Is(err, attachments.ErrTooLarge) {
		t.Errorf("reading a file grown to 1010 bytes = %d bytes, %v; want ErrTooLarge", len(b), err)
	}
}

func TestContentType(t *testing.T) {
	ws, base := newWorkspace(t, 1<<20)
	tests := []struct{ name, content, wantStat, wantOpen string }{
		{"a.pdf", "not really", "application/pdf", "application/pdf"},
		{"notes.txt", "hi", "text/plain; charset=utf-8", "text/plain; charset=utf-8"},
		{"scan", "%PDF-1.7 ...", "application/octet-stream", "application/pdf"},
		{"page", "<html><body>x</body></html>", "application/octet-stream", "text/html; charset=utf-8"},
		{"blob", "\x00\x01\x02", "application/octet-stream", "application/octet-stream"},
		{"empty", "", "application/octet-stream", "application/octet-stream"},
	}
	for _, tc := range tests {
		writeFile(t, wsDir(base), "uploads/"+tc.name, tc.content)
		st, err := ws.Stat("uploads/" + tc.name)
		if err != nil || st.ContentType != tc.wantStat {
			t.Errorf("Stat(%q).ContentType = %q, %v; want %q", tc.name, st.ContentType, err, tc.wantStat)
		}
		f, rc, err := ws.Open("uploads/" + tc.name)
		if err != nil {
			t.Errorf("Open(%q) = %v, want nil", tc.name, err)
			continue
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.ContentType != tc.wantOpen || string(b) != tc.content {
			t.Errorf("Open(%q) = type %q content %q; want %q %q", tc.name, f.ContentType, b, tc.wantOpen, tc.content)
		}
	}
}

// TestDownloadThenSend: a committed download opens like an upload, by the
// path Commit returned.
func TestDownloadThenSend(t *testing.T) {
	ws, _ := newWorkspace(t, 1<<20)
	saved := download(t, ws, "invoice.pdf", "%PDF-1.4 invoice")
	f, rc, err := ws.Open(saved.Path)
	if err != nil {
		t.Fatalf("Open(%q) = %v, want nil", saved.Path, err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "%PDF-1.4 invoice" || f != saved {
		t.Errorf("Open(%q) = %+v %q, want %+v", saved.Path, f, b, saved)
	}
}
