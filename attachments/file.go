package attachments

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"syscall"
)

// sniffLen is how many bytes content sniffing looks at.
const sniffLen = 512

// File describes a file of the workspace.
type File struct {
	// Path is relative to BaseDir, e.g. "attachments/email/uploads/a.pdf".
	Path string
	// Name is the last element of Path.
	Name string
	// ContentType is the MIME type, from the extension or the content.
	ContentType string
	// Size is the size in bytes.
	Size int64
}

// Stat checks path and describes the file it names without reading it. The
// content type comes from the extension only ("application/octet-stream"
// when it has none that is known).
func (w *Workspace) Stat(p string) (File, error) {
	loc, fi, err := w.lookup(p)
	if err != nil {
		return File{}, err
	}
	return w.describe(loc, fi, nil), nil
}

// Open checks path and opens the regular file it names for reading. The
// reader streams the file and fails with ErrTooLarge if the file grows past
// MaxFileSize while it is read. The caller closes it.
func (w *Workspace) Open(p string) (File, io.ReadCloser, error) {
	loc, fi, err := w.lookup(p)
	if err != nil {
		return File{}, nil, err
	}
	// O_NONBLOCK: a FIFO swapped in after lookup cannot block the open.
	// A symlink swapped in after lookup is followed, but checkOpened then
	// sees another file than the one checked.
	f, err := w.root(loc).OpenFile(loc.real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return File{}, nil, fsError("open", p, err)
	}
	ofi, err := w.checkOpened(p, f, fi)
	if err != nil {
		f.Close()
		return File{}, nil, err
	}
	br := bufio.NewReaderSize(f, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return File{}, nil, fmt.Errorf("open %q: %w", p, err)
	}
	rc := &limitedFile{r: br, c: f, left: w.maxSize}
	return w.describe(loc, ofi, head), rc, nil
}

// lookup resolves path, follows its symlinks (followLinks) and stats what it
// names through the folder's Root.
func (w *Workspace) lookup(p string) (location, fs.FileInfo, error) {
	loc, err := w.resolve(p)
	if err != nil {
		return location{}, nil, err
	}
	loc.real, err = followLinks(w.root(loc), loc.rel)
	if err != nil {
		return location{}, nil, fsError("stat", p, err)
	}
	fi, err := w.root(loc).Lstat(loc.real)
	if err != nil {
		return location{}, nil, fsError("stat", p, err)
	}
	if err := w.checkInfo(p, fi); err != nil {
		return location{}, nil, err
	}
	return loc, fi, nil
}

// checkOpened verifies that the opened file is the one lookup checked.
func (w *Workspace) checkOpened(p string, f *os.File, before fs.FileInfo) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open %q: %w", p, err)
	}
	if !os.SameFile(before, fi) {
		return nil, fmt.Errorf("open %q: file changed while opening: %w", p, ErrInvalidPath)
	}
	return fi, w.checkInfo(p, fi)
}

// checkInfo allows only regular files with one link, within the size limit.
func (w *Workspace) checkInfo(p string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%q is a %s: %w", p, kindOf(fi.Mode()), ErrNotRegularFile)
	}
	if linkCount(fi) > 1 {
		return fmt.Errorf("%q has several hard links: %w", p, ErrOutsideWorkspace)
	}
	if fi.Size() > w.maxSize {
		return fmt.Errorf("%q has %d bytes, limit %d: %w", p, fi.Size(), w.maxSize, ErrTooLarge)
	}
	return nil
}

// kindOf names a non-regular file mode for error texts.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// describe builds the File for a location; head is the start of the content
// for sniffing, or nil.
func (w *Workspace) describe(loc location, fi fs.FileInfo, head []byte) File {
	name := path.Base(loc.rel)
	return File{
		Path:        loc.display(),
		Name:        name,
		ContentType: contentType(name, head),
		Size:        fi.Size(),
	}
}

// contentType comes from the extension, else from sniffing head, else is
// application/octet-stream.
func contentType(name string, head []byte) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	if len(head) > 0 {
		return http.DetectContentType(head)
	}
	return "application/octet-stream"
}

// limitedFile streams a file and fails once more than left bytes were read.
type limitedFile struct {
	r    io.Reader
	c    io.Closer
	left int64
}

// Read implements io.Reader.
func (l *limitedFile) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, fmt.Errorf("read: file grew past the limit: %w", ErrTooLarge)
	}
	return n, err
}

// Close implements io.Closer.
func (l *limitedFile) Close() error { return l.c.Close() }
