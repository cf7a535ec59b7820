package message

import (
	"net/mail"
	"strings"
)

// addressParser parses RFC 5322 address lists, decoding RFC 2047 display
// names in any charset decodeCharset knows.
var addressParser = &mail.AddressParser{WordDecoder: wordDecoder}

// addresses decodes the values of an address field (several To: fields are
// one list). A list that net/mail rejects is split at top-level commas and
// semicolons, and each entry is parsed or salvaged on its own.
func (d headerDecoder) addresses(values []string) []Address {
	var out []Address
	for _, v := range values {
		v = windowsWords(strings.TrimSpace(d.raw(v)))
		if v == "" {
			continue
		}
		if list, err := addressParser.ParseList(v); err == nil {
			for _, a := range list {
				out = append(out, Address{Name: oneLine(a.Name), Email: oneLine(a.Address)})
			}
			continue
		}
		out = append(out, salvageList(v)...)
	}
	return out
}

// salvageList parses a list net/mail rejects entry by entry. A name-only
// entry followed by an address is taken as an unquoted display name with a
// comma in it ("Doe, Jane <jane@example.com>") and joined to it.
func salvageList(v string) []Address {
	var out []Address
	pendingName := ""
	for _, part := range SplitAddressList(v) {
		a, ok := parseOneAddress(part)
		switch {
		case !ok:
			continue
		case a.Email == "":
			pendingName = strings.TrimPrefix(pendingName+", "+a.Name, ", ")
			continue
		case pendingName != "":
			a.Name = strings.TrimSuffix(pendingName+", "+a.Name, ", ")
			pendingName = ""
		}
		out = append(out, a)
	}
	if pendingName != "" {
		out = append(out, Address{Name: pendingName})
	}
	return out
}

// parseOneAddress parses one entry of a broken list, falling back to
// salvageAddress.
func parseOneAddress(s string) (Address, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Address{}, false
	}
	if a, err := addressParser.Parse(windowsWords(s)); err == nil {
		return Address{Name: oneLine(a.Name), Email: oneLine(a.Address)}, true
	}
	return salvageAddress(s), true
}

// salvageAddress reads what it can from an entry net/mail rejects:
// "Name <addr" (no closing bracket), "Name addr@host", "addr@host (Name)",
// unbalanced quotes, or a bare name without any address.
func salvageAddress(s string) Address {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		email, _, _ := strings.Cut(s[i+1:], ">")
		return Address{Name: displayName(s[:i]), Email: cleanEmail(email)}
	}
	words := strings.Fields(s)
	for i, w := range words {
		if strings.Contains(w, "@") {
			rest := strings.Join(append(words[:i:i], words[i+1:]...), " ")
			return Address{Name: displayName(rest), Email: cleanEmail(w)}
		}
	}
	return Address{Name: displayName(s)}
}

// displayName unquotes and decodes a salvaged display name.
func displayName(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, `"'() `)
	s = strings.ReplaceAll(s, `\"`, `"`)
	return oneLine(decodeWords(s))
}

// cleanEmail strips the punctuation and blanks around a salvaged address.
func cleanEmail(s string) string {
	return oneLine(strings.Trim(strings.Join(strings.Fields(s), ""), `<>()"',;:`))
}

// SplitAddressList splits a list at commas and semicolons that are outside
// quotes, angle brackets and comments. When a quote is never closed, quotes
// are ignored so that the entries after it are not lost.
func SplitAddressList(s string) []string {
	if parts, ok := splitList(s, true); ok {
		return parts
	}
	parts, _ := splitList(s, false)
	return parts
}

// splitList splits s; ok is false when quotes are honoured and unbalanced.
func splitList(s string, quotes bool) (parts []string, ok bool) {
	var quoted, escaped bool
	angle, paren, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"' && quotes:
			quoted = !quoted
		case quoted:
		case c == '<':
			angle++
		case c == '>' && angle > 0:
			angle--
		case c == '(':
			paren++
		case c == ')' && paren > 0:
			paren--
		case (c == ',' || c == ';') && angle == 0 && paren == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:]), !quoted
}
