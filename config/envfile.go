package config

import (
	"bytes"
	"fmt"
	"strings"
)

// parseEnvFile reads the lines of a .env file (see "# .env files" in the
// package documentation): NAME=value, an optional `export ` prefix, blank
// lines and # comment lines. A value is
//
//   - single-quoted: taken verbatim up to the next ' (no escapes, no
//     expansion; it may span lines), so any password fits, a trailing
//     backslash included;
//   - double-quoted: up to the next unescaped ", with \n \r \t \" \\ \$
//     escapes and $NAME / ${NAME} expansion (it may span lines);
//   - unquoted: up to the first blank followed by # (a comment), trimmed,
//     with $NAME / ${NAME} expanded and \$ for a literal $.
//
// Expansion reads only earlier lines of the same file; an unknown name is
// empty. A UTF-8 byte order mark and CRLF line ends are accepted. After a
// quoted value only blanks and a comment may follow. It was godotenv, which
// cut a comment at the last " #" of a line, mangled \" at the end of a
// value, could not read '...\' and refused a byte order mark. Errors say
// which line, never its text (it may hold a secret).
func parseEnvFile(data []byte) (map[string]string, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	out := map[string]string{}
	for line := 1; len(s) > 0; {
		rest, next, err := parseEnvLine(s, out)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		line += next
		s = rest
	}
	return out, nil
}

// parseEnvLine reads one entry (or a blank or comment line) at the start of
// s into out and returns what follows it and how many lines it took.
func parseEnvLine(s string, out map[string]string) (rest string, lines int, err error) {
	cur, after, _ := strings.Cut(s, "\n")
	trimmed := strings.TrimLeft(cur, " \t")
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		return after, 1, nil
	}
	if r, ok := strings.CutPrefix(trimmed, "export"); ok && (strings.HasPrefix(r, " ") || strings.HasPrefix(r, "\t")) {
		trimmed = strings.TrimLeft(r, " \t")
	}
	name, value, ok := strings.Cut(trimmed, "=")
	name = strings.TrimRight(name, " \t")
	if !ok || !validEnvName(name) {
		return "", 0, errSyntax
	}
	value = strings.TrimLeft(value, " \t")
	// A quoted value may span lines: scan from here over the rest of s.
	tail := value
	if after != "" || strings.HasSuffix(s, "\n") {
		tail = value + "\n" + after
	}
	var v string
	switch {
	case strings.HasPrefix(value, "'"):
		end := strings.IndexByte(tail[1:], '\'')
		if end < 0 {
			return "", 0, errSyntax
		}
		v, tail = tail[1:1+end], tail[2+end:]
	case strings.HasPrefix(value, `"`):
		v, tail, err = doubleQuoted(tail[1:], out)
		if err != nil {
			return "", 0, err
		}
	default:
		if i := commentStart(value); i >= 0 {
			value = value[:i]
		}
		out[name] = expand(strings.TrimRight(value, " \t"), out)
		return after, 1, nil
	}
	// After the closing quote: blanks and a comment, up to the line's end.
	rem, nextPart, _ := strings.Cut(tail, "\n")
	if r := strings.TrimLeft(rem, " \t"); r != "" && !strings.HasPrefix(r, "#") {
		return "", 0, errSyntax
	}
	out[name] = v
	return nextPart, strings.Count(s[:len(s)-len(nextPart)], "\n"), nil
}

// doubleQuoted reads a double-quoted value up to its closing quote (s starts
// after the opening one), with its escapes and expansions, and returns the
// value and what follows the quote.
func doubleQuoted(s string, vars map[string]string) (string, string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", errSyntax
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\', '$':
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case '$':
			i += writeRef(&b, s[i:], vars) - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errSyntax // no closing quote
}

// commentStart is the index of the first blank followed by # in an
// unquoted value, or -1.
func commentStart(v string) int {
	for i := 1; i < len(v); i++ {
		if v[i] == '#' && (v[i-1] == ' ' || v[i-1] == '\t') {
			return i - 1
		}
	}
	return -1
}

// expand replaces $NAME and ${NAME} with earlier values; \$ is a literal $.
func expand(v string, vars map[string]string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == '$':
			b.WriteByte('$')
			i++
		case v[i] == '$':
			i += writeRef(&b, v[i:], vars) - 1
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// writeRef writes the value of the $NAME or ${NAME} at the start of s, or
// the $ alone when no name follows, and returns the bytes it read.
func writeRef(b *strings.Builder, s string, vars map[string]string) int {
	name, n := varRef(s)
	if n == 0 {
		b.WriteByte('$')
		return 1
	}
	b.WriteString(vars[name])
	return n
}

// varRef reads $NAME or ${NAME} at the start of s: the name and the bytes
// it takes, or 0 when s holds no reference.
func varRef(s string) (string, int) {
	if strings.HasPrefix(s, "${") {
		end := strings.IndexByte(s, '}')
		if end < 0 || !validEnvName(s[2:end]) {
			return "", 0
		}
		return s[2:end], end + 1
	}
	n := 1
	for n < len(s) && (isNameByte(s[n]) && (n > 1 || !isDigit(s[n]))) {
		n++
	}
	if n == 1 {
		return "", 0
	}
	return s[1:n], n
}

// validEnvName accepts NAME: letters, digits, _ and ., not starting with a
// digit.
func validEnvName(name string) bool {
	if name == "" || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) && name[i] != '.' {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool {
	return c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
