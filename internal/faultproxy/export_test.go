package faultproxy

import "time"

// SetHangMargin shortens the watchdog of Load for the tests of this
// package; it returns a function that restores it.
func SetHangMargin(d time.Duration) func() {
	old := hangMargin
	hangMargin = d
	return func() { hangMargin = old }
}
