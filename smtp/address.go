package smtp

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
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
