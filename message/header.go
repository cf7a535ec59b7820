package message

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Address is one mailbox of an address header, decoded for display. Email
// may be empty when a malformed entry held only a name.
type Address struct {
	Name  string // display name, RFC 2047 decoded; "" when absent
	Email string // addr-spec as written, e.g. "alice@example.com"
}

// Header holds the decoded header fields that read_email shows.
type Header struct {
	Subject string
	From    []Address
	To      []Address
	Cc      []Address
	Bcc     []Address // present in drafts only: a sent message carries none
	ReplyTo []Address
	Sender  []Address
	// Date is the Date field; the zero time when it is absent or unparseable.
	Date time.Time
	// MessageID is the Message-ID without angle brackets; "" when absent.
	MessageID string
	// InReplyTo and References list message ids without angle brackets.
	InReplyTo  []string
	References []string
	// ListUnsubscribe lists the URIs of List-Unsubscribe (mailto: or https:),
	// without angle brackets.
	ListUnsubscribe []string
}

// ParseHeader decodes the header block at the start of raw, which may be a
// whole message or only a prefix of one: a prefix cut inside the header
// yields the fields that are complete. Broken fields are salvaged (a
// malformed From still yields what could be read) and never fail the rest.
// All strings are valid UTF-8 on one line. The error, matching
// [ErrMalformed], is only for input without a single header field.
func ParseHeader(raw []byte) (Header, error) {
	f, _ := readFields(completeLines(raw))
	if len(f) == 0 {
		return Header{}, ErrMalformed
	}
	d := headerDecoder{hint: charsetParam(f.get("Content-Type"))}
	return Header{
		Subject:         d.text(f.get("Subject")),
		From:            d.addresses(f["From"]),
		To:              d.addresses(f["To"]),
		Cc:              d.addresses(f["Cc"]),
		Bcc:             d.addresses(f["Bcc"]),
		ReplyTo:         d.addresses(f["Reply-To"]),
		Sender:          d.addresses(f["Sender"]),
		Date:            parseDate(f.get("Date")),
		MessageID:       first(msgIDs(f["Message-Id"])),
		InReplyTo:       msgIDs(f["In-Reply-To"]),
		References:      msgIDs(f["References"]),
		ListUnsubscribe: angleList(f["List-Unsubscribe"]),
	}, nil
}

// headerDecoder decodes field values; hint is the message's declared
// charset, used for raw 8-bit header bytes that are not UTF-8.
type headerDecoder struct{ hint string }

// text decodes an unstructured field (Subject) to one line of UTF-8.
func (d headerDecoder) text(v string) string {
	return oneLine(decodeWords(d.raw(v)))
}

// raw turns the undecoded bytes of a field into valid UTF-8.
func (d headerDecoder) raw(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	return decodeCharset([]byte(v), d.hint)
}

// decodeWords decodes RFC 2047 encoded words, keeping the text as it is
// where decoding fails.
func decodeWords(v string) string {
	if !strings.Contains(v, "=?") {
		return v
	}
	if dec, err := wordDecoder.DecodeHeader(windowsWords(v)); err == nil {
		return dec
	}
	return v
}

// oneLine makes s valid UTF-8, turns control characters (folding leftovers,
// tabs, NUL) into spaces and trims it.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, s)
	}
	return strings.TrimSpace(s)
}

// charsetParam returns the charset parameter of a Content-Type value.
func charsetParam(v string) string {
	_, params := parseMediaType(v)
	return params["charset"]
}

// msgIDs extracts message ids from In-Reply-To/References/Message-ID
// values: the "<...>" tokens, or the blank-separated words when a sender
// left out the brackets. Duplicates are dropped.
func msgIDs(values []string) []string {
	var ids []string
	for _, v := range values {
		for _, id := range angleTokens(v) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// angleList extracts the "<...>" URIs of List-Unsubscribe style fields.
func angleList(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, angleTokens(v)...)
	}
	return out
}

// angleTokens returns the contents of the "<...>" tokens of v, without
// blanks (folding may split long ids and URLs). Without any "<", it falls
// back to the words of v separated by blanks and commas.
func angleTokens(v string) []string {
	v = oneLine(strings.ToValidUTF8(v, ""))
	var out []string
	if !strings.Contains(v, "<") {
		return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	}
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			return out
		}
		v = v[i+1:]
		j := strings.IndexByte(v, '>')
		if j < 0 {
			j = len(v)
		}
		if tok := strings.Join(strings.Fields(v[:j]), ""); tok != "" {
			out = append(out, tok)
		}
		if j == len(v) {
			return out
		}
		v = v[j+1:]
	}
}

// first returns the first element of s, or "".
func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
