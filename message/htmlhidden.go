package message

import (
	"strings"

	"golang.org/x/net/html"
)

// isHidden reports whether an element is invisible by its own attributes:
// the hidden attribute, or inline CSS that hides it (display:none,
// visibility:hidden, opacity:0, a zero max-height or height with
// overflow:hidden). Preheaders use these to put text in inbox previews only.
// Style sheets are not evaluated.
func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "hidden" {
			return true
		}
	}
	css := inlineStyle(attr(n, "style"))
	if len(css) == 0 {
		return false
	}
	switch {
	case css["display"] == "none", css["visibility"] == "hidden", isZero(css["opacity"]):
		return true
	case css["overflow"] == "hidden" && (isZero(css["max-height"]) || isZero(css["height"])):
		return true
	}
	return false
}

// isPixel reports a tracking pixel: an image 1×1 or smaller by its width
// or height attribute or inline CSS.
func isPixel(n *html.Node) bool {
	css := inlineStyle(attr(n, "style"))
	for _, k := range []string{"width", "height"} {
		if tiny(attr(n, k)) || tiny(css[k]) {
			return true
		}
	}
	return false
}

// inlineStyle parses a style attribute into lowercase property -> value,
// blanks and !important removed. The last declaration wins, as in CSS.
func inlineStyle(style string) map[string]string {
	if style == "" {
		return nil
	}
	css := map[string]string{}
	for _, decl := range strings.Split(strings.ToLower(style), ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		v = strings.TrimSuffix(strings.Join(strings.Fields(v), ""), "!important")
		css[strings.TrimSpace(k)] = v
	}
	return css
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
