package smtp

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Address is a mailbox: an optional display name and a bare email address
// ("a@example.com", no angle brackets).
type Address struct {
	Name  string
	Email string
}

// String formats a for people: "Name <a@example.com>", or the bare address
// without a name. It is not a header encoding (WriteTo does that).
func (a Address) String() string {
	if a.Name == "" {
		return a.Email
	}
	return a.Name + " <" + a.Email + ">"
}

// ParseAddress parses one address with net/mail: "Name <a@example.com>",
// "<a@example.com>" or "a@example.com"; an RFC 2047 name is decoded. Control
// characters (CR, LF, NUL, ...) anywhere, also once decoded, are
// ErrInvalidArgument.
func ParseAddress(s string) (Address, error) {
	if err := checkText("address", s); err != nil {
		return Address{}, err
	}
	p, err := mail.ParseAddress(s)
	if err != nil {
		return Address{}, invalid("address", "cannot parse %q: %v", s, err)
	}
	a := Address{Name: p.Name, Email: p.Address}
	if err := a.check("address"); err != nil {
		return Address{}, err
	}
	return a, nil
}

// ParseAddressList parses each string as one address or a comma-separated
// list of them, and returns all of them in order. An empty string is an
// error; an empty slice gives nil.
func ParseAddressList(ss []string) ([]Address, error) {
	var out []Address
	for i, s := range ss {
		field := fmt.Sprintf("address[%d]", i)
		if err := checkText(field, s); err != nil {
			return nil, err
		}
		list, err := mail.ParseAddressList(s)
		if err != nil {
			return nil, invalid(field, "cannot parse %q: %v", s, err)
		}
		for _, p := range list {
			a := Address{Name: p.Name, Email: p.Address}
			if err := a.check(field); err != nil {
				return nil, err
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// check validates a for a header named field.
func (a Address) check(field string) error {
	if err := checkText(field+".name", a.Name); err != nil {
		return err
	}
	return checkEmail(field+".email", a.Email)
}

// checkList validates a list of addresses.
func checkList(field string, list []Address) error {
	for i, a := range list {
		if err := a.check(fmt.Sprintf("%s[%d]", field, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkEmail accepts a bare addr-spec that net/mail reads back unchanged:
// no name, brackets, spaces or control characters.
func checkEmail(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "empty address")
	case len(s) > 254:
		return invalid(field, "address longer than 254 bytes")
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return invalid(field, "address %q contains spaces or control characters", s)
	}
	p, err := mail.ParseAddress(s)
	if err != nil || p.Name != "" || p.Address != s {
		return invalid(field, "%q is not a bare email address", s)
	}
	return nil
}

// checkText accepts header text: valid UTF-8 without control characters
// (CR, LF, NUL, DEL, C1), tab allowed.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return invalid(field, "not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return invalid(field, "control character %U at byte %d", r, i)
	}
	return nil
}

// Key is the form of an email address for comparing two: lower case, the
// domain in its ASCII (IDNA) form without a final dot, so that
// "Bob@Bücher.Example." and "bob@xn--bcher-kva.example" have one key. The
// local part is compared without case, as every common server treats it.
func Key(email string) string {
	email = strings.TrimSpace(email)
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return strings.ToLower(email)
	}
	return strings.ToLower(email[:at]) + "@" + DomainKey(email[at+1:])
}

// DomainKey is the form of a domain for comparing: lower case, ASCII
// (punycode, as IDNA's lookup maps it) when it converts, without a final
// dot.
func DomainKey(domain string) string {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if isASCII(d) {
		return d
	}
	if a, err := idna.Lookup.ToASCII(d); err == nil {
		return strings.ToLower(a)
	}
	return d
}

// untagged is a key without the sub-address of its local part
// ("agent+signup@x" -> "agent@x"); "" when it has none.
func untagged(key string) string {
	at := strings.LastIndexByte(key, '@')
	plus := strings.IndexByte(key, '+')
	if at < 0 || plus < 0 || plus > at {
		return ""
	}
	return key[:plus] + key[at:]
}
