//go:build unix

package attachments

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links, or 1 where the system does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
