package message

import (
	"net/mail"
	"strings"
	"time"
)

// dateLayouts are the shapes of Date fields seen in the wild that
// net/mail.ParseDate rejects: two-digit years, zone names without offsets,
// asctime, ISO 8601, missing zones.
var dateLayouts = []string{
	"Mon, 2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04:05",
	"Mon Jan _2 15:04:05 2006",
	"Mon Jan _2 15:04:05 MST 2006",
	"Mon Jan _2 15:04:05 -0700 2006",
	"Monday, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 January 2006 15:04:05 -0700",
	time.RFC3339,
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
}

// parseDate parses a Date field; it returns the zero time when the field
// is absent or in no known shape.
func parseDate(v string) time.Time {
	v = oneLine(v)
	if v == "" {
		return time.Time{}
	}
	if t, err := mail.ParseDate(v); err == nil {
		return t
	}
	v = stripComments(v)
	v = strings.Join(strings.Fields(strings.ReplaceAll(v, ",", ", ")), " ")
	v = strings.ReplaceAll(v, " ,", ",")
	if t, err := mail.ParseDate(v); err == nil {
		return t
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t
		}
	}
	return time.Time{}
}

// stripComments removes "(...)" comments, such as "(UTC)" or "(PST)".
func stripComments(v string) string {
	var b strings.Builder
	depth := 0
	for _, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}
