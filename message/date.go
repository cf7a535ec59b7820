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
	v = numericZone(oneLine(v))
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

// obsZones are the zone names RFC 5322 section 4.3 gives fixed offsets.
// time.Parse reads a name it does not know as UTC (named "EDT"), which put
// such dates 4 to 8 hours off.
var obsZones = map[string]string{
	"UT": "+0000", "GMT": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// numericZone replaces an obsolete zone name after the time of day by its
// offset, unless the date has a numeric offset already.
func numericZone(v string) string {
	fields := strings.Fields(v)
	at, timeSeen := -1, false
	for i, f := range fields {
		switch {
		case len(f) == 5 && (f[0] == '+' || f[0] == '-') && strings.Trim(f[1:], "0123456789") == "":
			return v
		case strings.Contains(f, ":"):
			timeSeen = true
		case timeSeen && at < 0 && obsZones[strings.ToUpper(f)] != "":
			at = i
		}
	}
	if at < 0 {
		return v
	}
	fields[at] = obsZones[strings.ToUpper(fields[at])]
	return strings.Join(fields, " ")
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
