package message

import (
	"strings"
	"unicode/utf8"
)

// Preview is text as a one-line preview of at most n characters (get_thread's):
// hidden characters removed (CleanText), quoted lines (">") and the
// attribution line above them left out, white space collapsed, "…" where
// it was cut.
func Preview(text string, n int) string {
	var words []string
	clean, _ := CleanText(text)
	lines := strings.Split(clean, "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, ">") {
			continue
		}
		if strings.HasSuffix(t, "wrote:") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), ">") {
			continue
		}
		words = append(words, strings.Fields(t)...)
		if len(words) > n {
			break
		}
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) > n {
		s = strings.TrimSpace(string([]rune(s)[:n-1])) + "…"
	}
	return s
}
