//go:build !unix

package attachments

import "io/fs"

// linkCount is 1: this system does not report hard links through FileInfo.
func linkCount(fs.FileInfo) uint64 { return 1 }
