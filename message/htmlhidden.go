package message

import (
	"strings"

	"golang.org/x/net/html"
)

// isHidden reports whether an element is invisible by its own attributes:
// the hidden attribute, or inline CSS that hides it (display:none,
// visibility:hidden, opacity:0, a zero max-height or height with
// overflow:hidden). Preheaders use these to put text in inbox previews only.
// Style sheets are not evaluated. st is the element's compactStyle.
func isHidden(n *html.Node, st string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "hidden" {
			return true
		}
	}
	if st == "" || !strings.Contains(st, "none") && !strings.Contains(st, "hidden") && !strings.Contains(st, "opacity") {
		return false // nothing that hides: skip reading the declarations
	}
	switch {
	case styleValue(st, "display") == "none", styleValue(st, "visibility") == "hidden", isZero(styleValue(st, "opacity")):
		return true
	case styleValue(st, "overflow") == "hidden" && (isZero(styleValue(st, "max-height")) || isZero(styleValue(st, "height"))):
		return true
	}
	return false
}

// isPixel reports a tracking pixel: an image 1×1 or smaller by its width
// or height attribute or inline CSS.
func isPixel(n *html.Node) bool {
	st := compactStyle(attr(n, "style"))
	for _, k := range []string{"width", "height"} {
		if tiny(attr(n, k)) || tiny(styleValue(st, k)) {
			return true
		}
	}
	return false
}

// isZero reports a CSS length or number that is zero ("0", "0px", "0.0",
// "0%", "0em").
func isZero(v string) bool {
	if v == "" {
		return false
	}
	v = strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz%")
	return v != "" && strings.Trim(v, "0.") == "" && strings.ContainsAny(v, "0")
}

// tiny reports a width or height of at most one pixel ("0", "1", "1px").
func tiny(v string) bool {
	v = strings.TrimSuffix(strings.TrimSpace(v), "px")
	return v == "0" || v == "1"
}
