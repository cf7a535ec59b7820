package attachments

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
)

const (
	// maxCommitAttempts bounds the names Commit tries: "a.pdf", "a (1).pdf" ...
	maxCommitAttempts = 1000
	// maxTempAttempts bounds the random temporary names Create tries.
	maxTempAttempts = 10
	// tempPrefix starts every temporary name: hidden, so Stat and Open
	// never see a partial download.
	tempPrefix = ".part-"
)

// Download is an attachment being written to downloads/. Write the content,
// then Commit to give it its final name, or Abort to drop it. Calling Abort
// after Commit does nothing, so `defer d.Abort()` is the usual pattern.
type Download interface {
	io.Writer
	// Commit publishes the file under its name, or under "name (N).ext" when
	// that is taken; it never replaces an existing file.
	Commit() (File, error)
	// Abort removes the temporary file.
	Abort() error
}

// Create starts a download named after name, reduced by SanitizeFilename.
// size is the expected size in bytes or -1 if unknown; a known size over
// MaxFileSize fails at once with ErrTooLarge, and writing past MaxFileSize
// fails with ErrTooLarge and removes the temporary file.
func (w *Workspace) Create(name string, size int64) (Download, error) {
	clean := SanitizeFilename(name)
	if size > w.maxSize {
		return nil, fmt.Errorf("create %q: %d bytes, limit %d: %w", clean, size, w.maxSize, ErrTooLarge)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, fmt.Errorf("create %q: the workspace is closed: %w", clean, ErrClosed)
	}
	root := w.roots[DownloadsDir]
	for range maxTempAttempts {
		tmp := tempPrefix + rand.Text()
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fsError("create", clean, err)
		}
		if err := f.Chmod(filePerm); err != nil {
			f.Close()
			root.Remove(tmp)
			return nil, fmt.Errorf("create %q: %w", clean, err)
		}
		d := &download{ws: w, root: root, max: w.maxSize, name: clean, tmp: tmp, f: f}
		w.active[d] = struct{}{}
		return d, nil
	}
	return nil, fmt.Errorf("create %q: no free temporary name: %w", clean, fs.ErrExist)
}

// download implements Download. Its methods may be called from different
// goroutines (Abort on cancellation, say).
type download struct {
	ws   *Workspace
	root *os.Root
	max  int64
	name string // sanitized final name
	tmp  string
	f    *os.File

	mu   sync.Mutex
	n    int64
	head []byte // first sniffLen bytes, for the content type
	done bool
	err  error // sticky failure
}

// Write implements io.Writer.
func (d *download) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return 0, err
	}
	if int64(len(p)) > d.max-d.n {
		d.fail(fmt.Errorf("write %q: over %d bytes: %w", d.name, d.max, ErrTooLarge))
		return 0, d.err
	}
	if room := sniffLen - len(d.head); room > 0 {
		d.head = append(d.head, p[:min(room, len(p))]...)
	}
	n, err := d.f.Write(p)
	d.n += int64(n)
	if err != nil {
		d.fail(fmt.Errorf("write %q: %w", d.name, err))
		return n, d.err
	}
	return n, nil
}

// Commit implements Download.
func (d *download) Commit() (File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return File{}, err
	}
	d.finish()
	defer d.removeTemp()
	if err := d.f.Sync(); err != nil {
		d.f.Close()
		return File{}, fmt.Errorf("commit %q: %w", d.name, err)
	}
	if err := d.f.Close(); err != nil {
		return File{}, fmt.Errorf("commit %q: %w", d.name, err)
	}
	final, err := d.publish()
	if err != nil {
		return File{}, err
	}
	loc := location{folder: DownloadsDir, rel: final}
	return File{Path: loc.display(), Name: final, ContentType: contentType(final, d.head), Size: d.n}, nil
}

// Abort implements Download.
func (d *download) Abort() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return nil
	}
	d.finish()
	d.f.Close()
	return d.removeTemp()
}

// usable reports why the download can take no more calls, if it cannot.
func (d *download) usable() error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return fmt.Errorf("download %q: %w", d.name, ErrClosed)
	}
	return nil
}

// fail records err and drops the temporary file.
func (d *download) fail(err error) {
	d.err = err
	d.finish()
	d.f.Close()
	d.removeTemp()
}

// finish marks the download done; the Workspace forgets it. d.mu is held.
func (d *download) finish() {
	d.done = true
	d.ws.mu.Lock()
	delete(d.ws.active, d)
	d.ws.mu.Unlock()
}

// removeTemp removes the temporary file; it is fine if it is gone.
func (d *download) removeTemp() error {
	if err := d.root.Remove(d.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove temporary file for %q: %w", d.name, err)
	}
	return nil
}

// publish gives the temporary file the first free candidate name. A hard
// link fails on an existing name, so nothing is ever replaced; where the file
// system has no hard links, the name is reserved with O_EXCL and then
// replaced by rename.
func (d *download) publish() (string, error) {
	useLink := true
	for i := range maxCommitAttempts {
		cand := candidateName(d.name, i)
		var err error
		if useLink {
			err = d.root.Link(d.tmp, cand)
			if err != nil && linkUnsupported(err) {
				useLink = false
			}
		}
		if !useLink {
			err = d.reserveAndRename(cand)
		}
		if err == nil {
			return cand, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fsError("commit", d.name, err)
		}
	}
	return "", fmt.Errorf("commit %q: %d names tried: %w", d.name, maxCommitAttempts, ErrNameTaken)
}

// reserveAndRename claims cand with O_EXCL, then moves the temporary file
// over the empty file it just created.
func (d *download) reserveAndRename(cand string) error {
	f, err := d.root.OpenFile(cand, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return err
	}
	f.Close()
	if err := d.root.Rename(d.tmp, cand); err != nil {
		d.root.Remove(cand)
		return err
	}
	return nil
}

// linkUnsupported reports a file system without hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}

// candidateName is name for attempt 0 and "stem (i).ext" after that, cut so
// that it stays within maxNameBytes.
func candidateName(name string, i int) string {
	if i == 0 {
		return name
	}
	stem, ext := splitExt(name)
	suffix := fmt.Sprintf(" (%d)", i)
	stem = cutBytes(stem, maxNameBytes-len(ext)-len(suffix))
	return stem + suffix + ext
}

// splitExt splits name into stem and extension; an extension longer than
// maxExtBytes, or one that is the whole name, does not count.
func splitExt(name string) (stem, ext string) {
	ext = path.Ext(name)
	if len(ext) > maxExtBytes || len(ext) == len(name) {
		return name, ""
	}
	return name[:len(name)-len(ext)], ext
}
