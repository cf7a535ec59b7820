package message

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// prominent reports whether an element shows its text the way mail shows a
// code: bold, large, letter-spaced or monospace, by tag or by inline style
// (st, its compactStyle).
func prominent(n *html.Node, st string) bool {
	if prominentTag(n.DataAtom) {
		return true
	}
	if st == "" {
		return false
	}
	return largeFont(styleValue(st, "font-size")) ||
		boldWeight(styleValue(st, "font-weight")) ||
		spaced(styleValue(st, "letter-spacing")) ||
		monospace(styleValue(st, "font-family"))
}

// prominentTag reports the elements that are prominent by their tag.
func prominentTag(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Strong, atom.H1, atom.H2, atom.H3, atom.Code, atom.Kbd,
		atom.Samp, atom.Tt, atom.Pre, atom.Big, atom.Mark:
		return true
	}
	return false
}

// buttonLike reports an anchor drawn as a button: a button class or role,
// or an inline style with padding or a background.
func buttonLike(n *html.Node) bool {
	if strings.Contains(strings.ToLower(attr(n, "class")), "btn") ||
		strings.Contains(strings.ToLower(attr(n, "class")), "button") ||
		attr(n, "role") == "button" {
		return true
	}
	st := compactStyle(attr(n, "style"))
	return strings.Contains(st, "padding") || strings.Contains(st, "background")
}

// compactStyle lowercases an inline style and removes its whitespace.
func compactStyle(s string) string {
	if s == "" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// styleValue returns the value of the last declaration of prop in a
// compacted style, or "".
func styleValue(st, prop string) string {
	val := ""
	for decl := range strings.SplitSeq(st, ";") {
		if v, ok := strings.CutPrefix(decl, prop+":"); ok {
			val = strings.TrimSuffix(v, "!important")
		}
	}
	return val
}

func largeFont(v string) bool {
	switch v {
	case "large", "x-large", "xx-large", "xxx-large", "larger":
		return true
	}
	num, unit := splitLength(v)
	switch unit {
	case "px":
		return num >= 18
	case "pt":
		return num >= 14
	case "em", "rem":
		return num >= 1.3
	case "%":
		return num >= 130
	}
	return false
}

func boldWeight(v string) bool {
	switch v {
	case "bold", "bolder", "600", "700", "800", "900":
		return true
	}
	return false
}

func spaced(v string) bool {
	num, _ := splitLength(v)
	return num > 0
}

func monospace(v string) bool {
	for _, f := range []string{"monospace", "courier", "consolas", "menlo", "monaco", "sfmono", "robotomono"} {
		if strings.Contains(v, f) {
			return true
		}
	}
	return false
}

// splitLength splits a CSS length like "32px" or "1.5em" into its number and
// unit; a value that does not start with a number gives 0.
func splitLength(v string) (float64, string) {
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, "" // no number: ParseFloat would allocate its error
	}
	num, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, ""
	}
	return num, v[i:]
}
