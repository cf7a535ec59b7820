package attachments

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on paths given to Stat and Open.
const (
	maxPathBytes = 4096
	maxNameBytes = 255
)

// location is a checked path: a folder of the workspace and a local path
// inside it, both in slash form.
type location struct {
	folder string // UploadsDir or DownloadsDir
	rel    string // local to the folder, never "", "." or hidden
	real   string // rel with its symlinks followed (lookup), what is opened
}

// maxLinkHops bounds the symlinks followed for one path (Linux's limit).
const maxLinkHops = 40

// root is the os.Root of the location's folder.
func (w *Workspace) root(loc location) *os.Root { return w.roots[loc.folder] }

// display is the location relative to BaseDir, as results show it.
func (loc location) display() string {
	return path.Join(WorkspaceDir, loc.folder, loc.rel)
}

// resolve checks a path given by a caller against the rules in the package
// documentation, without touching the file system.
func (w *Workspace) resolve(p string) (location, error) {
	if err := checkChars(p); err != nil {
		return location{}, fmt.Errorf("resolve %q: %w", p, err)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	for elem := range strings.SplitSeq(s, "/") {
		if elem == ".." {
			return location{}, fmt.Errorf("resolve %q: parent reference: %w", p, ErrOutsideWorkspace)
		}
		if len(elem) > maxNameBytes {
			return location{}, fmt.Errorf("resolve %q: name longer than %d bytes: %w", p, maxNameBytes, ErrInvalidPath)
		}
	}
	rest, ok := w.trimWorkspace(path.Clean(s))
	if !ok {
		return location{}, fmt.Errorf("resolve %q: not in %s or %s: %w", p, UploadsDir, DownloadsDir, ErrOutsideWorkspace)
	}
	folder, rel, _ := strings.Cut(rest, "/")
	if folder != UploadsDir && folder != DownloadsDir {
		return location{}, fmt.Errorf("resolve %q: not in %s or %s: %w", p, UploadsDir, DownloadsDir, ErrOutsideWorkspace)
	}
	if rel == "" {
		return location{}, fmt.Errorf("resolve %q: names a folder: %w", p, ErrNotRegularFile)
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return location{}, fmt.Errorf("resolve %q: %w", p, ErrOutsideWorkspace)
	}
	for elem := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(elem, ".") {
			return location{}, fmt.Errorf("resolve %q: hidden files are not part of the workspace: %w", p, ErrOutsideWorkspace)
		}
	}
	return location{folder: folder, rel: rel}, nil
}

// followLinks returns rel with every symlink along it replaced by its target,
// as the file system would follow them, so that what rel names can be
// checked by its real name: a link whose target is absolute, leaves the
// folder, passes through a hidden element (a link "notes.txt" to ".env", or
// to a partial download) or loops gives ErrOutsideWorkspace. A missing
// element gives ErrNotFound. The result names no symlink when followLinks
// looked; the caller opens it and checks it is still the same file.
func followLinks(root *os.Root, rel string) (string, error) {
	todo := strings.Split(rel, "/")
	var done []string
	for hops := 0; len(todo) > 0; {
		elem := todo[0]
		todo = todo[1:]
		switch {
		case elem == "" || elem == ".":
			continue
		case elem == "..":
			if len(done) == 0 {
				return "", fmt.Errorf("a link leads out of its folder: %w", ErrOutsideWorkspace)
			}
			done = done[:len(done)-1]
			continue
		case strings.HasPrefix(elem, "."):
			return "", fmt.Errorf("a link leads to a hidden file: %w", ErrOutsideWorkspace)
		}
		p := path.Join(append(done, elem)...)
		fi, err := root.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = append(done, elem)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("too many links: %w", ErrOutsideWorkspace)
		}
		target, err := root.Readlink(p)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) || filepath.IsAbs(target) {
			return "", fmt.Errorf("an absolute link: %w", ErrOutsideWorkspace)
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
	}
	if len(done) == 0 {
		return "", fmt.Errorf("a link leads to the folder itself: %w", ErrNotRegularFile)
	}
	return path.Join(done...), nil
}

// trimWorkspace removes the workspace prefix from a cleaned slash path: the
// absolute workspace folder, or the optional BaseDir-relative
// "attachments/email/". It reports false for an absolute path elsewhere.
func (w *Workspace) trimWorkspace(s string) (string, bool) {
	if path.IsAbs(s) || filepath.IsAbs(s) {
		prefix := filepath.ToSlash(w.dir) + "/"
		rest, ok := strings.CutPrefix(s, prefix)
		return rest, ok
	}
	rest, _ := strings.CutPrefix(s, WorkspaceDir+"/")
	return rest, true
}

// checkChars refuses empty and over-long paths, invalid UTF-8, control
// characters and invisible or bidi format characters.
func checkChars(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path: %w", ErrInvalidPath)
	case len(p) > maxPathBytes:
		return fmt.Errorf("path longer than %d bytes: %w", maxPathBytes, ErrInvalidPath)
	case !utf8.ValidString(p):
		return fmt.Errorf("path is not valid UTF-8: %w", ErrInvalidPath)
	}
	for _, r := range p {
		if unicode.IsControl(r) || isInvisible(r) {
			return fmt.Errorf("path holds character %U: %w", r, ErrInvalidPath)
		}
	}
	return nil
}

// isInvisible reports format characters (Unicode category Cf: zero-width,
// bidi controls, BOM, soft hyphen ...), line and paragraph separators and the
// blank fillers that render as nothing.
func isInvisible(r rune) bool {
	switch r {
	case '\u034F', '\u115F', '\u1160', '\u2028', '\u2029', '\u3164', '\uFFA0', '\u2800':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
