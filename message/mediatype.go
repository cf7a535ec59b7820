package message

import (
	"mime"
	"strings"
)

// parseMediaType parses a Content-Type or Content-Disposition value with
// mime.ParseMediaType (RFC 2231 continuations and charsets included) and
// falls back to a plain "type; key=value" split for values it rejects
// (duplicate or unquoted parameters, trailing semicolons). The type is
// lowercase; "" when the value is empty.
func parseMediaType(v string) (string, map[string]string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", map[string]string{}
	}
	v = extendedToUTF8(v)
	if t, params, err := mime.ParseMediaType(v); err == nil {
		return t, params
	}
	parts := strings.Split(v, ";")
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, val, ok := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			continue
		}
		if _, dup := params[k]; !dup {
			params[k] = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	return strings.ToLower(strings.TrimSpace(parts[0])), params
}
