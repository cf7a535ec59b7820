package message

import (
	"regexp"
	"strings"
)

// RFC 2231 extended parameter values in any charset.
//
// mime.ParseMediaType decodes name*=charset'lang'%XX only when the charset
// is UTF-8 or US-ASCII; any other value (iso-8859-1, the common one from
// older clients) is dropped without an error, and a file lost its name: an
// attachment then looked like a body. ExtendedParamsToUTF8 rewrites such
// values into utf-8'lang'%XX first, with the charset rules of the bodies
// (ISO-8859-1 read as windows-1252, unknown labels keep their bytes).

// ExtendedParamsToUTF8 rewrites in place the RFC 2231 extended values of a
// parameter map (keys lower-case, values as sent): name*=charset'lang'%XX,
// and the sections name*0*=charset'lang'%XX, name*1*=%XX ... of a
// continued value, whose charset is not UTF-8, into UTF-8. Sections are
// converted one by one, which is exact for single-byte charsets and for
// encoders that split between characters, as they do.
func ExtendedParamsToUTF8(params map[string]string) {
	charsets := map[string]string{} // name -> charset of its first section
	for k, v := range params {
		name, first, ok := extendedKey(k)
		if !ok || !first {
			continue
		}
		cs, rest, ok := splitExtended(v)
		if !ok || isUTF8Label(cs) {
			continue
		}
		charsets[name] = cs
		params[k] = "utf-8'" + rest
	}
	for k, v := range params {
		name, _, ok := extendedKey(k)
		cs, converting := charsets[name]
		if !ok || !converting {
			continue
		}
		if head, pct, ok := cutLang(v); ok && strings.HasPrefix(head, "utf-8'") {
			params[k] = head + recode(pct, cs) // the first section, already relabelled
			continue
		}
		params[k] = recode(v, cs)
	}
}

// extendedParam is one name*=value or name*N*=value in a header value.
var extendedParam = regexp.MustCompile(`(?i)([;\s])([a-z0-9!#$&+.^_` + "`" + `|~-]+\*(?:[0-9]+\*)?)\s*=\s*("[^"]*"|[^;\s]*)`)

// extendedToUTF8 applies ExtendedParamsToUTF8 to a Content-Type or
// Content-Disposition header value.
func extendedToUTF8(v string) string {
	if !strings.Contains(v, "*") {
		return v
	}
	matches := extendedParam.FindAllStringSubmatchIndex(v, -1)
	if len(matches) == 0 {
		return v
	}
	params := map[string]string{}
	for _, m := range matches {
		params[strings.ToLower(v[m[4]:m[5]])] = strings.Trim(v[m[6]:m[7]], `"`)
	}
	ExtendedParamsToUTF8(params)
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(v[last:m[6]])
		b.WriteString(params[strings.ToLower(v[m[4]:m[5]])])
		last = m[7]
	}
	b.WriteString(v[last:])
	return b.String()
}

// extendedKey splits "name*" (first true) and "name*N*" (first when N is 0).
func extendedKey(k string) (name string, first, ok bool) {
	base, ok := strings.CutSuffix(k, "*")
	if !ok {
		return "", false, false
	}
	if i := strings.LastIndexByte(base, '*'); i >= 0 {
		n := base[i+1:]
		if n == "" || strings.Trim(n, "0123456789") != "" {
			return "", false, false
		}
		return base[:i], n == "0", true
	}
	return base, true, true
}

// splitExtended splits charset'lang'value into the charset and "lang'value".
func splitExtended(v string) (charset, rest string, ok bool) {
	cs, rest, ok := strings.Cut(v, "'")
	if !ok || !strings.Contains(rest, "'") {
		return "", "", false
	}
	return cs, rest, true
}

// cutLang splits "charset'lang'" from the percent-encoded value.
func cutLang(v string) (head, value string, ok bool) {
	i := strings.IndexByte(v, '\'')
	if i < 0 {
		return "", "", false
	}
	j := strings.IndexByte(v[i+1:], '\'')
	if j < 0 {
		return "", "", false
	}
	return v[:i+j+2], v[i+j+2:], true
}

// isUTF8Label reports the charsets mime.ParseMediaType decodes itself.
func isUTF8Label(cs string) bool {
	switch strings.ToLower(cs) {
	case "utf-8", "us-ascii", "":
		return true
	}
	return false
}

// recode percent-decodes pct, converts it from charset to UTF-8 and
// percent-encodes the result again (every byte outside attribute-char).
func recode(pct, charset string) string {
	var raw []byte
	for i := 0; i < len(pct); i++ {
		if pct[i] == '%' && i+2 < len(pct) && isHex(pct[i+1]) && isHex(pct[i+2]) {
			raw = append(raw, unhex(pct[i+1])<<4|unhex(pct[i+2]))
			i += 2
			continue
		}
		raw = append(raw, pct[i])
	}
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for _, c := range []byte(decodeCharset(raw, charset)) {
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// isAttrChar reports RFC 2231 attribute-char: a token character other than
// "*", "'" and "%".
func isAttrChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
