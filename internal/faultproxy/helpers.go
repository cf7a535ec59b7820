package faultproxy

import (
	"bytes"
	"sync/atomic"
)

// HideMove is a RewriteDownstream that removes MOVE from an IMAP server's
// capability lines, so that clients fall back to COPY + EXPUNGE.
func HideMove(line []byte) []byte {
	if bytes.Contains(line, []byte("CAPABILITY ")) {
		return bytes.ReplaceAll(line, []byte(" MOVE"), nil)
	}
	return line
}

// CutOnce is a Hook that cuts the connection at the first chunk in dir
// that contains marker, and only then; fired records that it did, so that a
// test can check its fault was injected.
func CutOnce(dir Direction, marker string, fired *atomic.Bool) Hook {
	return func(d Direction, chunk []byte) Verdict {
		if d == dir && bytes.Contains(chunk, []byte(marker)) && fired.CompareAndSwap(false, true) {
			return Cut
		}
		return Forward
	}
}
