package smtp

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Original is what a reply needs to know about the message it answers.
type Original struct {
	From, ReplyTo, To, Cc []Address
}

// replyPrefix matches the reply markers at the start of a subject: Re, and
// the localized AW (German), SV (Nordic), VS (Finnish), Antw (Dutch), Odp
// (Polish), optionally counted (Re[2]:, Re(2):), repeated.
var replyPrefix = regexp.MustCompile(`(?i)^\s*(?:(?:re|aw|sv|vs|antw|odp)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*)+`)

// ReplySubject gives the subject of a reply: exactly one "Re: " in front,
// whatever reply markers the original had (re:, RE:, Re[2]:, "Re: Re:",
// AW:, SV: ...). Other prefixes such as "Fwd:" stay: "Fwd: x" -> "Re: Fwd: x".
func ReplySubject(s string) string {
	rest := strings.TrimSpace(replyPrefix.ReplaceAllString(s, ""))
	return strings.TrimSpace("Re: " + rest)
}

// idToken is one message id in a list written any way ("<a@b> <c@d>",
// "a@b,c@d").
var idToken = regexp.MustCompile(`[^<>\s,]+`)

// ReplyThread gives the In-Reply-To and References of a reply (RFC 5322
// section 3.6.4) from the original's References, In-Reply-To and
// Message-ID. In-Reply-To is the original's Message-ID. References is the
// original's References, or, when it has none, its In-Reply-To if that
// names exactly one message, followed by the original's Message-ID (the
// parent, always last), without repeats, in order. Elements may hold
// several ids, with or without <>; ids a message cannot carry (no "@",
// spaces) are dropped, the original's own included: a reply to a message
// with such a Message-ID goes out unthreaded rather than refused.
func ReplyThread(origRefs, origInReplyTo []string, origID string) (inReplyTo string, refs []string) {
	parent := normalizeID(origID)
	if !validMsgID(parent) {
		parent = ""
	}
	chain := validIDs(origRefs)
	if len(chain) == 0 {
		if grand := validIDs(origInReplyTo); len(grand) == 1 {
			chain = grand
		}
	}
	for _, id := range chain {
		if id != parent && !slices.Contains(refs, id) {
			refs = append(refs, id)
		}
	}
	if parent != "" {
		refs = append(refs, parent)
	}
	return parent, refs
}

// validIDs lists the ids a message can carry found in list, in order.
func validIDs(list []string) []string {
	var out []string
	for _, r := range list {
		for _, id := range idToken.FindAllString(r, -1) {
			if validMsgID(id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// ReplyRecipients gives the To and Cc of a reply. To is the original's
// Reply-To when it has one, else its From. With all (reply-all), the
// original To joins To and the original Cc becomes Cc. Our own addresses
// are left out: self, and its sub-addresses (agent+tag@x for agent@x),
// compared by Key (any case, IDN or punycode domain, final dot). Every
// address appears once, also compared by Key; the first form seen is kept.
// When that leaves To empty (a reply to a message we sent), To is the
// original's To; when even that is only us (a note to self), the reply goes
// to the original's Reply-To or From after all. The lists are not bounded:
// the caller decides how many recipients a reply may have.
func ReplyRecipients(orig Original, self []string, all bool) (to, cc []Address) {
	own := map[string]bool{}
	for _, s := range self {
		if k := Key(s); k != "" {
			own[k] = true
		}
	}
	seen := map[string]bool{}
	take := func(dst, list []Address) []Address {
		for _, a := range list {
			k := Key(a.Email)
			if a.Email == "" || seen[k] || own[k] || own[untagged(k)] {
				continue
			}
			seen[k] = true
			dst = append(dst, a)
		}
		return dst
	}
	primary := orig.ReplyTo
	if len(primary) == 0 {
		primary = orig.From
	}
	to = take(nil, primary)
	if len(to) == 0 || all {
		to = take(to, orig.To)
	}
	if all {
		cc = take(nil, orig.Cc)
	}
	if len(to) == 0 {
		for _, a := range primary {
			if a.Email != "" {
				to = append(to, a)
				break
			}
		}
	}
	return to, cc
}

// Attribution is the line above a quote: "On Mon, 2 Jan 2006 at 15:04
// -0700, Name <a@example.com> wrote:" (without the date when it is zero).
func Attribution(date time.Time, from Address) string {
	who := from.String()
	if date.IsZero() {
		return who + " wrote:"
	}
	return "On " + date.Format("Mon, 2 Jan 2006 at 15:04 -0700") + ", " + who + " wrote:"
}

// QuoteBody quotes text for a reply: the attribution line (when not empty),
// then every line of text prefixed with "> " (">" before a line that is
// already quoted or empty). Line ends become "\n".
func QuoteBody(text, attribution string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.TrimRight(text, "\n")
	var b strings.Builder
	if attribution != "" {
		b.WriteString(attribution + "\n")
	}
	if text == "" {
		return b.String()
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "", line[0] == '>':
			b.WriteString(">" + line + "\n")
		default:
			b.WriteString("> " + line + "\n")
		}
	}
	return b.String()
}
