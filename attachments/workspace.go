package attachments

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Folder names of the workspace, relative to BaseDir, in slash form.
const (
	// WorkspaceDir is the workspace itself, relative to BaseDir.
	WorkspaceDir = "attachments/email"
	// UploadsDir holds files the operator offers for sending.
	UploadsDir = "uploads"
	// DownloadsDir holds attachments saved from mail.
	DownloadsDir = "downloads"
)

// DefaultMaxFileSize is the per-file limit used when Options.MaxFileSize is
// not positive (MAX_ATTACHMENT_SIZE_MB's default of 50).
const DefaultMaxFileSize int64 = 50 << 20

const (
	dirPerm  fs.FileMode = 0o700
	filePerm fs.FileMode = 0o600
)

// Options configures a Workspace.
type Options struct {
	// BaseDir is EMAIL_BASE_DIR and must be absolute. It never defaults to
	// the working directory: empty gives ErrNotConfigured.
	BaseDir string
	// MaxFileSize is the per-file limit in bytes for reading and writing;
	// zero or less means DefaultMaxFileSize.
	MaxFileSize int64
	// Logger receives start-up warnings; nil discards them.
	Logger *slog.Logger
}

// Workspace is the opened attachment workspace. It is safe for concurrent use.
type Workspace struct {
	base    string
	dir     string
	roots   map[string]*os.Root // UploadsDir and DownloadsDir
	maxSize int64
	log     *slog.Logger

	mu     sync.Mutex
	closed bool
	active map[*download]struct{} // downloads neither committed nor aborted
}

// Open creates BaseDir/attachments/email/{uploads,downloads} as needed (mode
// 0700) and opens both folders as os.Root. The two folders must be real
// folders inside attachments/email: a symlink is refused.
func Open(opts Options) (*Workspace, error) {
	if opts.BaseDir == "" {
		return nil, ErrNotConfigured
	}
	if !filepath.IsAbs(opts.BaseDir) {
		return nil, fmt.Errorf("open workspace: base dir %q is not absolute: %w", opts.BaseDir, ErrInvalidPath)
	}
	w := &Workspace{
		base:    filepath.Clean(opts.BaseDir),
		maxSize: opts.MaxFileSize,
		log:     opts.Logger,
		roots:   make(map[string]*os.Root, 2),
		active:  map[*download]struct{}{},
	}
	if w.maxSize <= 0 {
		w.maxSize = DefaultMaxFileSize
	}
	if w.log == nil {
		w.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	w.dir = filepath.Join(w.base, filepath.FromSlash(WorkspaceDir))
	if err := makeDirs(w.dir); err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if err := w.openRoots(); err != nil {
		w.Close()
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return w, nil
}

// makeDirs creates dir/uploads and dir/downloads with their missing parents
// and sets 0700 on every directory it created, whatever the umask.
func makeDirs(dir string) error {
	var created []string
	for _, sub := range []string{UploadsDir, DownloadsDir} {
		leaf := filepath.Join(dir, sub)
		for p := leaf; ; p = filepath.Dir(p) {
			if _, err := os.Lstat(p); err == nil {
				break
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if !slices.Contains(created, p) {
				created = append(created, p)
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		if err := os.MkdirAll(leaf, dirPerm); err != nil {
			return err
		}
	}
	for _, p := range created {
		if err := os.Chmod(p, dirPerm); err != nil {
			return err
		}
	}
	return nil
}

// openRoots opens uploads/ and downloads/ through a Root of the workspace
// folder; neither may be a symlink.
func (w *Workspace) openRoots() error {
	top, err := os.OpenRoot(w.dir)
	if err != nil {
		return err
	}
	defer top.Close()
	for _, sub := range []string{UploadsDir, DownloadsDir} {
		// OpenRoot follows a symlink that stays in the workspace folder
		// (uploads -> . would serve attachments/email/ itself).
		if fi, err := top.Lstat(sub); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("open %q: a symlink, not a folder: %w", sub, ErrOutsideWorkspace)
		}
		r, err := top.OpenRoot(sub)
		if err != nil {
			return fsError("open", sub, err)
		}
		w.roots[sub] = r
		if fi, err := r.Stat("."); err == nil && fi.Mode().Perm()&0o077 != 0 {
			w.log.Warn("attachment folder is readable by others", "folder", sub, "mode", fi.Mode().Perm().String())
		}
	}
	return nil
}

// Close aborts the downloads not yet committed (they fail afterwards) and
// releases the folders.
func (w *Workspace) Close() error {
	w.mu.Lock()
	w.closed = true
	pending := make([]*download, 0, len(w.active))
	for d := range w.active {
		pending = append(pending, d)
	}
	w.mu.Unlock()
	// A download still running (a shutdown that did not wait for it) is
	// aborted while its folder is open: once the Root is closed its hidden
	// temporary file could not be removed, and nothing would ever see it.
	// A Commit in progress finishes first (Abort waits for it).
	var errs []error
	for _, d := range pending {
		errs = append(errs, d.Abort())
	}
	for _, r := range w.roots {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// MaxFileSize reports the per-file limit in bytes.
func (w *Workspace) MaxFileSize() int64 { return w.maxSize }
