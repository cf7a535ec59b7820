package imap

import (
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

// TestFlagStrings: system flags in RFC 3501's case, keywords as given, and
// \Recent (session state, seen by one connection only) left out.
func TestFlagStrings(t *testing.T) {
	got := flagStrings([]goimap.Flag{`\seen`, `\RECENT`, `\Recent`, `$Forwarded`, `\Flagged`, `Work`})
	want := []string{`\Seen`, `$Forwarded`, `\Flagged`, `Work`}
	if !slices.Equal(got, want) {
		t.Errorf("flagStrings() = %q, want %q", got, want)
	}
}
