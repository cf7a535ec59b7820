package config

import (
	"errors"
	"strings"
	"testing"
)

// TestEnvFileSyntax: the rest of the .env syntax, and errors that name the
// line but not its text.
func TestEnvFileSyntax(t *testing.T) {
	const file = "A=1\r\n" + // CRLF
		"B = spaced \t \n" +
		"C=\"multi\nline\" # comment\n" +
		"D='single\nline'\n" +
		"E=$A-${B}-$NOPE-\\$A\n" +
		"F=\"$A \\$A \\n\\t\\\\\"\n" +
		"G='$A \\n'\n" +
		"H=a#b\n" +
		"export I=exported\n" +
		"\n  # indented comment\n" +
		"J=\"\"\n" +
		"K=last"
	got, err := parseEnvFile([]byte(file))
	if err != nil {
		t.Fatalf("parseEnvFile() = %v", err)
	}
	for name, want := range map[string]string{
		"A": "1", "B": "spaced", "C": "multi\nline", "D": "single\nline", "E": "1-spaced--$A",
		"F": "1 $A \n\t\\", "G": `$A \n`, "H": "a#b", "I": "exported", "J": "", "K": "last",
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %q", name, got[name], want)
		}
	}
	for _, bad := range []string{"NO_EQUALS\n", "1A=x\n", "A='open\n", "A=\"open\n", "A='x' trailing\n", "A=\"x\\"} {
		_, err := parseEnvFile([]byte("SECRET_LINE=ok\n" + bad))
		if !errors.Is(err, errSyntax) || !strings.HasPrefix(err.Error(), "line 2: ") || strings.Contains(err.Error(), "ok") {
			t.Errorf("parseEnvFile(%q) = %v, want errSyntax naming line 2 and no text", bad, err)
		}
	}
}
