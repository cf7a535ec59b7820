package extract

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

// textURL is an http(s) URL found in plain text.
type textURL struct {
	start, end int    // byte range of the URL in the text (brackets excluded)
	url        string // the URL, with the line wraps of a bracketed URL removed
}

// maxBracketedURL bounds how far a "<http…>" URL may run before its ">".
const maxBracketedURL = 4096

// findURLs returns the http and https URLs of a plain text, in order. A URL
// in angle brackets may be wrapped over lines (RFC 3986, appendix C): its
// line breaks and the whitespace around them are dropped. Trailing
// punctuation that ends a sentence is not part of a URL.
func findURLs(s string) []textURL {
	var out []textURL
	for i := 0; i < len(s); {
		j := indexHTTP(s, i)
		if j < 0 {
			break
		}
		u, ok := urlAt(s, j)
		if !ok {
			i = j + 4
			continue
		}
		if isHTTP(u.url) {
			out = append(out, u)
		}
		i = max(u.end, j+4)
	}
	return out
}

// indexHTTP returns the index of the next "http://" or "https://" (any case)
// at or after i that starts a word, or -1.
func indexHTTP(s string, i int) int {
	for ; i+7 <= len(s); i++ {
		if s[i] != 'h' && s[i] != 'H' {
			continue
		}
		if !hasPrefixFold(s[i:], "http://") && !hasPrefixFold(s[i:], "https://") {
			continue
		}
		if i > 0 {
			if r, _ := utf8.DecodeLastRuneInString(s[:i]); unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		return i
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// urlAt reads the URL that starts at s[i].
func urlAt(s string, i int) (textURL, bool) {
	if i > 0 && s[i-1] == '<' {
		if u, ok := bracketedURL(s, i); ok {
			return u, true
		}
	}
	end := i
	inSquare := i > 0 && s[i-1] == '[' // Markdown's "[https://…](https://…)": the text ends at ']'
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if endsURL(r) && !(r == '|' && midURL(s, end+size)) || inSquare && r == ']' {
			break
		}
		end += size
	}
	end = trimURLEnd(s, i, end)
	if end-i <= len("http://") {
		return textURL{}, false
	}
	return textURL{start: i, end: end, url: s[i:end]}, true
}

// bracketedURL reads "<http…>", where the URL may be wrapped over lines.
func bracketedURL(s string, i int) (textURL, bool) {
	rest := s[i:min(len(s), i+maxBracketedURL)]
	j := strings.IndexAny(rest, "<>")
	if j < 0 || rest[j] != '>' {
		return textURL{}, false
	}
	inner := rest[:j]
	if strings.ContainsAny(inner, " \t\r\n") && !onlyWrapSpace(inner) {
		return textURL{}, false
	}
	joined := strings.Join(strings.Fields(inner), "")
	if strings.ContainsAny(joined, "\"'`") || len(joined) <= len("http://") {
		return textURL{}, false
	}
	return textURL{start: i, end: i + j, url: joined}, true
}

// onlyWrapSpace reports whether every whitespace run in s holds a line
// break, as when a long URL is wrapped; a plain space ends a URL instead.
func onlyWrapSpace(s string) bool {
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsSpace(r) }) {
		if !strings.ContainsAny(f, "\r\n") {
			return false
		}
	}
	return true
}

// midURL reports a URL character at s[i]: a '|' before it is inside the
// URL (OpenCart's "route=account/forgotten|reset&…"), not a separator
// ("https://a.test | Help").
func midURL(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !endsURL(r) && r < unicode.MaxASCII
}

// endsURL reports runes that cannot be part of a URL in running text.
func endsURL(r rune) bool {
	switch r {
	case '<', '>', '"', '\'', '`', '{', '}', '|', '\\', '^', utf8.RuneError:
		return true
	}
	if unicode.IsSpace(r) || unicode.IsControl(r) || message.IsPadding(r) {
		return true
	}
	return r > unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}

// trimURLEnd drops sentence punctuation after a URL, and a closing bracket
// that has no opening one inside the URL.
func trimURLEnd(s string, start, end int) int {
	u := s[start:end]
	parens := strings.Count(u, "(") - strings.Count(u, ")")
	squares := strings.Count(u, "[") - strings.Count(u, "]")
	for end > start {
		switch c := s[end-1]; {
		case strings.IndexByte(".,;:!?*", c) >= 0:
		case c == ')' && parens < 0:
			parens++
		case c == ']' && squares < 0:
			squares++
		default:
			return end
		}
		end--
	}
	return end
}

// isHTTP reports whether s is an absolute http or https URL with a host.
func isHTTP(s string) bool {
	if !hasPrefixFold(s, "http://") && !hasPrefixFold(s, "https://") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}
