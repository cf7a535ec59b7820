package extract

import (
	"strings"
	"unicode"
)

// token is a maximal run of digits and Latin letters.
type token struct {
	s, e   int   // rune range
	digits int32 // decimal digits of any script
	ascii  int32 // of which ASCII
	upper  int32 // ASCII uppercase letters
	lower  int32 // ASCII lowercase letters
	other  int32 // any other letter (lowercase, accented)
}

func (t token) size() int      { return t.e - t.s }
func (t token) numeric() bool  { return t.upper == 0 && t.other == 0 }
func (t token) mixed() bool    { return t.upper > 0 && t.digits > 0 }
func (t token) codeable() bool { return t.other == 0 && (t.upper == 0 || t.digits == t.ascii) }

// lowerGroup reports a token of 3–6 ASCII lowercase letters, the group of
// a code like Plane's "ejzh-lquo-kthn".
func (t token) lowerGroup() bool {
	return t.lower == t.other && int(t.lower) == t.size() && t.size() >= 3 && t.size() <= 6
}

// lowerAlnumGroup reports a token of 3–6 ASCII lowercase letters and
// digits, a group of a code like Linear's "kq481-7203m".
func (t token) lowerAlnumGroup() bool {
	return t.upper == 0 && t.lower == t.other && t.digits == t.ascii && t.size() >= 3 && t.size() <= 6
}

// mixesLowerDigits reports a lowercase group with letters and digits.
func (t token) mixesLowerDigits() bool { return t.lowerAlnumGroup() && t.lower > 0 && t.digits > 0 }

// candidate is a code-shaped run of a text.
type candidate struct {
	s, e     int  // rune range of the raw code
	numeric  bool // digits only
	groups   int  // 1, or the number of groups of a split code
	size     int  // digits and letters, separators not counted
	prefixed bool // follows a sender mark like "G-"
	letters  bool // letters only, in dashed groups
	lower    bool // lowercase letters (and digits), in dashed groups
	cased    bool // one token of letters and digits in lowercase or both cases
	long     bool // one token of 16–40 letters and digits, a code only where a code keyword binds it
}

// tokens splits a view into tokens and keeps those that can be part of a
// code or a number: with digits, uppercase letters only, or a short run of
// lowercase letters (a group of a dashed code). Dropping other words keeps
// the tokens around them apart, as chains need.
func (v *textView) tokens() []token {
	var out []token
	var cur token
	in := false
	for i, r := range v.runes {
		if !isTokenRune(r) {
			if in && v.keep(cur) {
				out = append(out, cur)
			}
			in = false
			continue
		}
		if !in {
			cur, in = token{s: i}, true
		}
		cur.e = i + 1
		switch {
		case unicode.IsDigit(r):
			cur.digits++
			if r <= '9' {
				cur.ascii++
			}
		case r >= 'A' && r <= 'Z':
			cur.upper++
		case r >= 'a' && r <= 'z':
			cur.lower++
			cur.other++
		default:
			cur.other++
		}
	}
	if in && v.keep(cur) {
		out = append(out, cur)
	}
	return out
}

// keep reports a token that can be part of a code or a number. A short
// lowercase word is kept only when a dash joins it to the next or the
// previous one: prose has many such words, dashed codes few.
func (v *textView) keep(t token) bool {
	if t.digits > 0 || t.codeable() {
		return true
	}
	if !t.lowerGroup() {
		return false
	}
	return t.e+1 < len(v.runes) && isDash(v.runes[t.e]) && isTokenRune(v.runes[t.e+1]) ||
		t.s >= 2 && isDash(v.runes[t.s-1]) && isTokenRune(v.runes[t.s-2])
}

func isTokenRune(r rune) bool {
	return unicode.IsDigit(r) || unicode.IsLetter(r) && unicode.Is(unicode.Latin, r)
}

// chains groups tokens joined by one space or one dash, as in "739 204",
// "XK4-9PT" or "INV-20250412". All joints of a chain are of one kind.
func (v *textView) chains(toks []token) [][]token {
	var out [][]token
	for i := 0; i < len(toks); {
		j, kind := i+1, rune(0)
		for ; j < len(toks); j++ {
			k := v.joint(toks[j-1], toks[j])
			if k == 0 || kind != 0 && k != kind {
				break
			}
			kind = k
		}
		out = append(out, toks[i:j])
		i = j
	}
	return out
}

// joint returns ' ' or '-' when a and b are joined into one chain, else 0.
// Digits join digits by a space or a dash; letter-digit groups join by a
// space only when both mix letters and digits ("A7K 92Q").
func (v *textView) joint(a, b token) rune {
	if b.s != a.e+1 {
		return 0
	}
	sep := v.runes[a.e]
	if a.lowerGroup() && b.lowerGroup() && isDash(sep) {
		return '-'
	}
	if isDash(sep) && a.lowerAlnumGroup() && b.lowerAlnumGroup() && (a.mixesLowerDigits() || b.mixesLowerDigits()) {
		return '-' // "kq481-7203m"
	}
	if !a.codeable() || !b.codeable() {
		return 0
	}
	switch {
	case isDash(sep):
		return '-'
	case !isJoinSpace(sep):
		return 0
	case a.numeric() && b.numeric(), a.mixed() && b.mixed():
		return ' '
	}
	return 0
}

func isJoinSpace(r rune) bool {
	switch r {
	case ' ', '\u00a0', '\u202f', '\u2009', '\u2007':
		return true
	}
	return false
}

// candidateOf returns the code a chain spells, if it has the shape of one:
// 4–8 digits, or 6–10 uppercase letters and digits with both kinds; split
// into groups of equal size ("739 204", "7 4 1 9 0 2", "A7K-92Q"). Letters
// alone make a code only in two or three equal groups joined by dashes
// ("QHTR-MWZK"): a single word in capitals is a word.
func candidateOf(chain []token, dashed bool) (candidate, bool) {
	c := candidate{s: chain[0].s, e: chain[len(chain)-1].e, numeric: true, groups: len(chain)}
	if len(chain) == 1 && (mixedCase(chain[0]) || lowerAlnum(chain[0])) {
		c.numeric, c.cased, c.size = false, true, chain[0].size()
		return c, true
	}
	if chain[0].lowerGroup() || len(chain) > 1 && chain[0].mixesLowerDigits() {
		return lowerCandidate(c, chain, dashed)
	}
	if len(chain) == 1 && longToken(chain[0]) {
		c.numeric, c.long, c.size = false, true, chain[0].size()
		return c, true
	}
	letters, digits := 0, 0
	for _, t := range chain {
		if t.size() != chain[0].size() || !t.codeable() {
			return c, false
		}
		c.numeric = c.numeric && t.numeric()
		letters += int(t.upper)
		digits += int(t.digits)
	}
	c.size = letters + digits
	if c.numeric {
		return c, c.size >= 4 && c.size <= 8
	}
	grouped := len(chain) <= 3 && chain[0].size() >= 3
	maxSize := 10
	if grouped && len(chain) == 3 {
		maxSize = 12 // "QHTR-MWZK-XPLA", "A7K2-9PQ3-XY4Z"
	}
	if letters == 0 || c.size < 6 || c.size > maxSize {
		return c, false
	}
	if digits == 0 {
		c.letters = true
		return c, dashed && len(chain) >= 2 && grouped
	}
	return c, len(chain) == 1 || grouped
}

// lowerCandidate takes three or four dashed groups of lowercase letters
// of one size ("ejzh-lquo-kthn", Notion's "brasl-ontex-ivund-akope"): two
// are too often words ("real-time"); and two or three of lowercase
// letters and digits (Linear's "kq481-7203m"), with both in the whole.
func lowerCandidate(c candidate, chain []token, dashed bool) (candidate, bool) {
	letters, digits := 0, 0
	for _, t := range chain {
		if t.size() != chain[0].size() || !t.lowerAlnumGroup() {
			return c, false
		}
		letters, digits = letters+int(t.lower), digits+int(t.digits)
	}
	c.numeric, c.lower, c.size = false, true, len(chain)*chain[0].size()
	if digits > 0 {
		return c, dashed && letters >= 2 && digits >= 2 && len(chain) <= 3 && c.size <= 16
	}
	c.letters = true
	return c, dashed && len(chain) >= 3 && len(chain) <= 4 && c.size <= 20
}

// mixedCase reports a token like "K7EqTEcCtR" (Grafana's sign-up code) or
// "h4TzQ9" (Pocket ID's login code): 6–12 ASCII letters of both cases and
// digits, not a word followed by a number.
func mixedCase(t token) bool {
	return t.other == t.lower && t.upper >= 2 && t.lower >= 2 && t.digits > 0 && t.digits == t.ascii &&
		t.size() >= 6 && t.size() <= 12
}

// lowerAlnum reports a token like "x7k2p9" or Firezone's "k7mdtq": 6–10
// ASCII lowercase letters and digits, at least two letters and a digit.
func lowerAlnum(t token) bool {
	return t.upper == 0 && t.other == t.lower && t.lower >= 2 && t.digits >= 1 && t.digits == t.ascii &&
		t.size() >= 6 && t.size() <= 10
}

// longToken reports a token like Joomla's "9f3b7c1e5a2d48f6b0c4e8a1d7f5b3c9":
// 16–40 ASCII letters and digits, at least four of each.
func longToken(t token) bool {
	return t.other == t.lower && t.digits == t.ascii && t.digits >= 4 && t.upper+t.lower >= 4 &&
		t.size() >= 16 && t.size() <= 40
}

// codeOf returns the code as the user types it: separators removed and
// digits of any script written as ASCII.
func codeOf(raw string) string {
	var b strings.Builder
	for _, r := range raw {
		switch {
		case isDash(r) || unicode.IsSpace(r):
		case unicode.IsDigit(r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// digitValue returns the value of a decimal digit of any script. Unicode
// assigns decimal digits in runs of ten from zero, and the Nd table lists
// whole runs, so the offset in a range gives the value.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return 0
}
