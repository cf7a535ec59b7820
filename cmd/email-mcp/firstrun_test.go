package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestVersionFlags: --version, -version and -v print the version like the
// version command (--version was an unknown flag, exit 2).
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "-v"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{arg}, nil, &out, &errb); code != exitOK || !strings.HasPrefix(out.String(), "email-mcp ") {
			t.Errorf("email-mcp %s = %d, stdout %q, stderr %q; want 0 and the version", arg, code, out.String(), errb.String())
		}
	}
}
