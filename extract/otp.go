package extract

import (
	"cmp"
	"math"
	"slices"
	"unicode"
)

// OTP is a one-time code found in a message.
type OTP struct {
	Code       string  // as the user types it: spaces and dashes removed, digits in ASCII
	Raw        string  // as the message shows it, e.g. "739 204"
	Confidence float64 // in [0,1]; the same message always gives the same value
}

// OTPs returns every code-shaped candidate of a message, best first; equal
// confidences keep the order subject, text body, HTML body. A code found in
// several places is listed once, with its best confidence. Candidates below
// FoundThreshold are included; numbers that cannot be codes (dates, prices,
// phone numbers, numbers in URLs...) are not.
func OTPs(m Message) []OTP {
	subject := newView(m.Subject, fromSubject, nil)
	boost := subjectBoost(subject)
	found := subject.scored(0)
	if m.Text != "" {
		found = append(found, newView(m.Text, fromText, nil).scored(boost)...)
	}
	if m.HTML != "" {
		r := render(m.HTML)
		found = append(found, newView(r.text, fromHTML, r.spans).scored(boost)...)
	}
	return merge(found)
}

// BestOTP returns the most likely code when its confidence reaches
// FoundThreshold.
func BestOTP(m Message) (OTP, bool) {
	all := OTPs(m)
	if len(all) == 0 || all[0].Confidence < FoundThreshold {
		return OTP{}, false
	}
	return all[0], true
}

// scoredCode is one occurrence of a candidate with its score.
type scoredCode struct {
	code, raw string
	score     float64
	from      source
}

// subjectBoost is what a code keyword in the subject adds to body candidates.
func subjectBoost(subject *textView) float64 {
	best := 0.0
	for _, h := range subject.hits {
		if h.kw.class == kwCode {
			best = max(best, h.kw.weight)
		}
	}
	return wSubject * best
}

// scored finds and scores the candidates of one view, in text order.
func (v *textView) scored(subject float64) []scoredCode {
	var cands []candidate
	for _, chain := range v.chains(v.tokens()) {
		if !v.masked[chain[0].s] && chainDigits(chain) >= 3 {
			v.numbers = append(v.numbers, runeRange{chain[0].s, chain[len(chain)-1].e})
		}
		prefixed := v.senderPrefix(chain)
		if prefixed {
			chain = chain[1:]
		}
		c, ok := candidateOf(chain, len(chain) > 1 && isDash(v.runes[chain[0].e]))
		c.prefixed = prefixed
		if ok && !v.rejected(c) {
			cands = append(cands, c)
		}
	}
	var out []scoredCode
	for _, c := range cands {
		raw := v.src[v.off[c.s]:v.off[c.e]]
		code := codeOf(raw)
		if s, ok := v.scoreOf(c, code, subject); ok {
			out = append(out, scoredCode{code: code, raw: raw, score: s, from: v.from})
		}
	}
	return out
}

// senderPrefix reports a chain like "G-482913": a one- or two-letter
// sender mark and a dash before digits, which the user does not type.
func (v *textView) senderPrefix(chain []token) bool {
	return len(chain) >= 2 && chain[0].digits == 0 && chain[0].size() <= 2 &&
		isDash(v.runes[chain[0].e]) && chain[1].numeric()
}

func chainDigits(chain []token) int {
	n := 0
	for _, t := range chain {
		n += int(t.digits)
	}
	return n
}

// rejected reports candidates that are part of something else: a URL or
// e-mail address, a longer number (decimals, times, dates, versions, phone
// numbers), an identifier joined by punctuation, a price, a colour, a date.
func (v *textView) rejected(c candidate) bool {
	for i := c.s; i < c.e; i++ {
		if v.masked[i] {
			return true
		}
	}
	if v.attachedLeft(c) || v.attachedRight(c) || v.currencyNear(c) {
		return true
	}
	code := codeOf(v.src[v.off[c.s]:v.off[c.e]])
	if c.numeric && dateShaped(code) {
		return true
	}
	return !c.numeric && allHex(code) && c.s > 0 && v.runes[c.s-1] == '#'
}

// attachedLeft reports a candidate glued to what comes before it by
// punctuation that joins identifiers and numbers ("v4.123456", "+49...").
func (v *textView) attachedLeft(c candidate) bool {
	if c.s == 0 || c.prefixed {
		return false
	}
	sep := v.runes[c.s-1]
	return sep == '+' || c.s >= 2 && joins(sep, v.runes[c.s-2])
}

func (v *textView) attachedRight(c candidate) bool {
	return c.e+1 < len(v.runes) && joins(v.runes[c.e], v.runes[c.e+1])
}

// joins reports whether sep between a candidate and the rune other makes
// them one word or number.
func joins(sep, other rune) bool {
	switch {
	case sep == ',' || sep == ':':
		return unicode.IsDigit(other)
	case isDash(sep), sep == '.', sep == '/', sep == '\\', sep == '_', sep == '@',
		sep == '=', sep == '&', sep == '+':
		return isTokenRune(other)
	}
	return false
}

// currencyNear reports a currency sign before or after the candidate, or a
// percent sign after it, with at most one space in between.
func (v *textView) currencyNear(c candidate) bool {
	at := func(i int) rune {
		if i < 0 || i >= len(v.runes) {
			return 0
		}
		return v.runes[i]
	}
	l, r := at(c.s-1), at(c.e)
	if l == ' ' || l == '\u00a0' {
		l = at(c.s - 2)
	}
	if r == ' ' || r == '\u00a0' {
		r = at(c.e + 1)
	}
	return unicode.Is(unicode.Sc, l) || unicode.Is(unicode.Sc, r) || r == '%'
}

// merge lists each code once with its best score, adds the repetition
// bonus for a code in both subject and body, and sorts best first.
func merge(found []scoredCode) []OTP {
	type entry struct {
		best              scoredCode
		inSubject, inBody bool
		order             int
	}
	byCode := map[string]*entry{}
	var order []*entry
	for _, f := range found {
		e, ok := byCode[f.code]
		if !ok {
			e = &entry{best: f, order: len(order)}
			byCode[f.code] = e
			order = append(order, e)
		} else if f.score > e.best.score {
			e.best = f
		}
		e.inSubject = e.inSubject || f.from == fromSubject
		e.inBody = e.inBody || f.from != fromSubject
	}
	out := make([]OTP, 0, len(order))
	for _, e := range order {
		s := e.best.score
		if e.inSubject && e.inBody {
			s += wRepeated
		}
		out = append(out, OTP{Code: e.best.code, Raw: e.best.raw, Confidence: confidence(s)})
	}
	slices.SortStableFunc(out, func(a, b OTP) int { return cmp.Compare(b.Confidence, a.Confidence) })
	return out
}

// confidence maps a score to [0,1] through a logistic curve centred at 1.5,
// rounded to three decimals so that results print stably.
func confidence(score float64) float64 {
	c := 1 / (1 + math.Exp(-1.5*(score-1.5)))
	return math.Round(c*1000) / 1000
}
