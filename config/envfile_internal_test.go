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

// FuzzEnvFile: parseEnvFile never panics, its errors name a line and never
// quote the file, and a file written with single quotes reads back exactly.
func FuzzEnvFile(f *testing.F) {
	for _, s := range []string{"A=1\n", "export B='x y'\n# c\n", `C="a\"b\\" # d`, "D=${A}-$B\r\n", "\uFEFFE='multi\nline'\n",
		"F='open", `G="x\`, "1H=x", "I", "J=a #b #c", "K='v' tail"} {
		f.Add(s, "value")
	}
	f.Fuzz(func(t *testing.T, file, value string) {
		got, err := parseEnvFile([]byte(file))
		if err != nil {
			if !errors.Is(err, errSyntax) || !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("parseEnvFile(%q) error %q, want errSyntax naming a line", file, err)
			}
			if text := strings.TrimPrefix(err.Error(), "line "); strings.Contains(text, strings.TrimSpace(file)) && len(strings.TrimSpace(file)) > 3 {
				t.Fatalf("parseEnvFile(%q) error %q quotes the file", file, err)
			}
		}
		_ = got
		if strings.ContainsRune(value, '\'') {
			return
		}
		back, err := parseEnvFile([]byte("X_1='" + value + "'\n"))
		if err != nil || back["X_1"] != strings.ReplaceAll(value, "\r\n", "\n") {
			t.Fatalf("single-quoted %q read back as %q, %v", value, back["X_1"], err)
		}
	})
}
