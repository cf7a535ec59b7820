package extract

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Weights of the code score. A candidate's score is the sum of its
// features; its confidence is the logistic of the score (see confidence).
const (
	wBefore      = 3.2 // the nearest code keyword before the candidate
	wAfter       = 2.8 // the nearest code keyword after it ("482913 is your code")
	wOtherBefore = 3.5 // the nearest keyword before names another number
	wOtherAfter  = 1.0 // ... after it
	wUnitAfter   = 3.0 // a unit right after it ("500 points")
	wFarther     = 0.3 // share of a keyword that is not the nearest one
	wBetween     = 0.3 // share of a keyword with another number in between
	wSubject     = 1.2 // a code keyword in the subject (for body candidates)
	wStyled      = 1.4 // alone in a bold/large/spaced/monospace element
	wAlone       = 0.8 // alone in a block, cell or line
	wHash        = 2.5 // penalty for a '#' right before ("#100234")
	wRepeated    = 0.3 // the same code in the subject and the body
	wCasedAlone  = 0.8 // a short mixed-case code alone on its line: half its shape penalty back

	windowBefore = 70  // reading distance over which a keyword fades out
	windowIntro  = 140 // ... for a code that stands alone, introduced by the paragraph before it
	windowAfter  = 60
	windowOther  = 35
	windowOtherA = 12
	windowDate   = 12
	windowBind   = 12 // a keyword this close before a number belongs to it
)

// scoreOf returns a candidate's score, or false when its context rejects it
// (a year next to "©" or a month name).
func (v *textView) scoreOf(c candidate, code string, subject float64) (float64, bool) {
	prom := v.prominence(c)
	if c.long && prom == 0 && !v.bound(c) {
		// A long token in running text is a code only right after its
		// keyword; standing alone on its line (Statamic's "Copy and paste
		// the code shown below" and then the code), the paragraph decides.
		return 0, false
	}
	window := windowBefore
	if prom > 0 {
		// "Your code is listed below. Enter it in the open window." and
		// then the code on a line of its own: the paragraph introduces it.
		window = windowIntro
	}
	before, ok1 := v.before(c, code, window)
	after, ok2 := v.after(c, code, prom > 0)
	if !ok1 || !ok2 {
		return 0, false
	}
	s := shapeScore(c, code) + before + after + prom
	if c.cased && c.size < 8 && prom > 0 {
		s += wCasedAlone // "hT7x2Q" alone under "enter the security code": no product name stands so
	}
	if v.from != fromSubject {
		s += subject
	}
	if c.s > 0 && v.runes[c.s-1] == '#' {
		s -= wHash
	}
	return s, true
}

// shapeScore rates how code-like a candidate looks on its own: six digits
// most, groups of digits a little more, years and letter-prefixed ids less.
func shapeScore(c candidate, code string) float64 {
	if c.long {
		return 0 // bound by its keyword ("The verification code is 9f3b…"): see bound
	}
	if c.lower {
		return -1.2 // "ejzh-lquo-kthn" is a code, "one-two-six" is not: a keyword close by decides
	}
	if c.letters {
		return -0.8 // "QHTR-MWZK" is a code, "MUST-READ" is not: context decides
	}
	if c.cased {
		if trailingDigits(code) {
			return -2.5 // "Product2024", "Win11Pro": names, not codes
		}
		if c.size < 8 {
			return -2.0 // "h4TzQ9" is a code, "iOS17x" and "WiFi6E" are not: a keyword close by decides
		}
		return -1.2
	}
	if !c.numeric {
		s := -0.5
		if lettersThenDigits(code) {
			s -= 1.0 // "UA1234", "JANE4821": ids, not codes
		}
		if allHex(code) {
			s -= 0.5
		}
		return s
	}
	s := map[int]float64{4: -0.6, 5: -0.3, 6: 0.3, 7: -0.2, 8: 0}[c.size]
	if c.groups > 1 {
		s += 0.3
	}
	if yearLike(code) {
		s -= 1.5
	}
	return s
}

// before weighs the keywords before a candidate, the nearest fully.
func (v *textView) before(c candidate, code string, window int) (float64, bool) {
	var sum keywordSum
	intro := -1
	if window == windowIntro {
		intro = v.introStart(c)
	}
	for i := v.firstHitFrom(c.s) - 1; i >= 0 && sum.n < 3; i-- {
		h := v.hits[i]
		if h.end > c.s {
			continue
		}
		d := v.distance(h.end, c.s, window+3)
		if intro >= 0 && h.start >= intro {
			// The paragraph that introduces a code standing alone labels
			// it however long it is: "Ihr Anmeldecode ist unten
			// aufgeführt. Bitte geben Sie ihn in Ihrem geöffneten
			// Browserfenster ein." and then the code.
			d = min(d, windowIntro/2)
		}
		if d > window {
			break
		}
		if sum.add(v.beforeWeight(h, c, d, code, window)) {
			return 0, false
		}
	}
	return sum.total, true
}

// introStart returns the rune offset where the paragraph before the
// candidate's line starts: the text back to a blank line, at most
// maxIntro runes. It returns -1 when nothing but space comes before.
func (v *textView) introStart(c candidate) int {
	i := c.s
	for i > 0 && v.runes[i-1] != '\n' {
		i--
	}
	for i > 0 && unicode.IsSpace(v.runes[i-1]) {
		i--
	}
	if i == 0 {
		return -1
	}
	end := i
	for i > 0 && end-i < maxIntro {
		if v.runes[i-1] == '\n' && blankBefore(v.runes, i-1) {
			break
		}
		i--
	}
	return i
}

// outroEnd returns the rune offset where the paragraph after the
// candidate's line ends: the text up to a blank line, at most maxIntro
// runes. It returns -1 when nothing but space follows.
func (v *textView) outroEnd(c candidate) int {
	i := c.e
	for i < len(v.runes) && v.runes[i] != '\n' {
		i++
	}
	for i < len(v.runes) && unicode.IsSpace(v.runes[i]) {
		i++
	}
	if i == len(v.runes) {
		return -1
	}
	start := i
	for i < len(v.runes) && i-start < maxIntro {
		if v.runes[i] == '\n' && blankAfter(v.runes, i) {
			break
		}
		i++
	}
	return i
}

// blankAfter reports whether the line that starts after the newline at i
// is blank.
func blankAfter(r []rune, i int) bool {
	for j := i + 1; j < len(r) && r[j] != '\n'; j++ {
		if !unicode.IsSpace(r[j]) {
			return false
		}
	}
	return true
}

// maxIntro bounds the paragraph that introduces a code, or follows it.
const maxIntro = 300

// blankBefore reports whether the line that ends at the newline at i is
// blank.
func blankBefore(r []rune, i int) bool {
	for j := i - 1; j >= 0 && r[j] != '\n'; j-- {
		if !unicode.IsSpace(r[j]) {
			return false
		}
	}
	return true
}

// bound reports a strong code keyword ending at most windowBind runes
// before the candidate, with no number between: what a long token needs
// to be taken for a code.
func (v *textView) bound(c candidate) bool {
	for i := v.firstHitFrom(c.s) - 1; i >= 0; i-- {
		h := v.hits[i]
		if h.end > c.s {
			continue
		}
		if v.distance(h.end, c.s, windowBind+1) > windowBind {
			return false
		}
		if h.kw.class == kwCode && h.kw.weight >= 0.9 && !v.numberBetween(h.end, c.s) {
			return true
		}
	}
	return false
}

// keywordSum adds up the keywords on one side of a candidate, nearest
// first: the nearest counts fully, the next ones by wFarther.
type keywordSum struct {
	total float64
	n     int
}

// add takes one keyword's weight; counts false with a negative w rejects
// the candidate (add then reports true), counts false otherwise skips it.
func (k *keywordSum) add(w float64, counts bool) (reject bool) {
	if !counts {
		return w < 0
	}
	if k.n > 0 {
		w *= wFarther
	}
	k.total += w
	k.n++
	return false
}

// beforeWeight is one keyword's say on the candidate after it; counts is
// false for keywords that do not label it (a negative w then rejects it).
func (v *textView) beforeWeight(h hit, c candidate, d int, code string, window int) (float64, bool) {
	switch h.kw.class {
	case kwCode:
		w := wBefore * h.kw.weight * fade(d, window)
		if v.numberBetween(h.end, c.s) {
			w *= wBetween
		}
		return w, true
	case kwOther:
		// "order 12345, code 482913": the keyword belongs to the number it
		// introduces; one too far away labels nothing.
		f := fade(d, windowOther)
		if f == 0 || v.numberBetween(h.end, c.s) {
			return 0, false
		}
		return -wOtherBefore * h.kw.weight * f, true
	case kwDate:
		if yearLike(code) && d <= windowDate {
			return -1, false
		}
	}
	return 0, false
}

// after weighs the keywords after a candidate, the nearest fully. A code
// keyword that introduces another number belongs to that one.
func (v *textView) after(c candidate, code string, alone bool) (float64, bool) {
	var sum keywordSum
	outro := -1
	if alone {
		outro = v.outroEnd(c)
	}
	for _, h := range v.hits[v.firstHitFrom(c.e):] {
		if sum.n >= 3 {
			break
		}
		d := v.distance(c.e, h.start, windowAfter+3)
		if h.end <= outro {
			// The paragraph right after a code standing alone speaks of
			// it however long it is: "To choose a new password, please
			// enter the code above in the app".
			d = min(d, windowAfter/2)
		}
		if d > windowAfter {
			break
		}
		if sum.add(v.afterWeight(h, c, d, code)) {
			return 0, false
		}
	}
	return sum.total, true
}

func (v *textView) afterWeight(h hit, c candidate, d int, code string) (float64, bool) {
	switch h.kw.class {
	case kwCode:
		if v.numberBetween(c.e, h.start) || v.introduces(h) {
			return 0, false
		}
		return wAfter * h.kw.weight * fade(d, windowAfter), true
	case kwOther:
		return -wOtherAfter * h.kw.weight * fade(d, windowOtherA), true
	case kwUnit:
		if d <= 2 {
			return -wUnitAfter, true
		}
	case kwDate:
		if yearLike(code) && d <= windowDate {
			return -1, false
		}
	}
	return 0, false
}

// firstHitFrom returns the index of the first keyword that starts at or
// after rune offset i.
func (v *textView) firstHitFrom(i int) int {
	k, _ := slices.BinarySearchFunc(v.hits, i, func(h hit, i int) int { return cmp.Compare(h.start, i) })
	return k
}

// fade is 1 for a keyword next to the candidate, falling to 0 at window.
func fade(d, window int) float64 {
	f := 1 - float64(max(0, d-3))/float64(window)
	return max(0, min(1, f))
}

// numberBetween reports whether a number other than the candidate lies
// in [a, b).
func (v *textView) numberBetween(a, b int) bool {
	n, ok := v.numberFrom(a)
	return ok && n.e <= b
}

// introduces reports whether a keyword is followed closely by a number.
func (v *textView) introduces(h hit) bool {
	n, ok := v.numberFrom(h.end)
	return ok && v.distance(h.end, n.s, windowBind+1) <= windowBind
}

// numberFrom returns the first number that starts at or after a.
func (v *textView) numberFrom(a int) (runeRange, bool) {
	i, _ := slices.BinarySearchFunc(v.numbers, a, func(n runeRange, a int) int { return cmp.Compare(n.s, a) })
	if i == len(v.numbers) {
		return runeRange{}, false
	}
	return v.numbers[i], true
}

// prominence rewards a code that stands alone: in a styled element, in a
// block or table cell, or on a line of its own.
func (v *textView) prominence(c candidate) float64 {
	best := 0.0
	if v.from != fromSubject && v.aloneOnLine(c) {
		best = wAlone
	}
	// Spans are sorted by start and hold at most maxSpanBytes bytes, so only
	// those starting shortly before the candidate can hold it.
	first, _ := slices.BinarySearchFunc(v.spans, c.s+1, func(sp span, s int) int { return cmp.Compare(sp.start, s) })
	for i := first - 1; i >= 0 && v.spans[i].start >= c.s-maxSpanBytes; i-- {
		sp := v.spans[i]
		if c.e <= sp.end && v.alone(sp.start, sp.end, c) {
			if sp.styled {
				return wStyled
			}
			best = wAlone
		}
	}
	return best
}

// aloneOnLine reports whether no letter or digit shares the candidate's line.
func (v *textView) aloneOnLine(c candidate) bool {
	for i := c.s - 1; i >= 0 && v.runes[i] != '\n'; i-- {
		if isWordRune(v.runes[i]) {
			return false
		}
	}
	for i := c.e; i < len(v.runes) && v.runes[i] != '\n'; i++ {
		if isWordRune(v.runes[i]) {
			return false
		}
	}
	return true
}

// alone reports whether [a, b) holds no letter or digit besides c.
func (v *textView) alone(a, b int, c candidate) bool {
	for i := a; i < b; i++ {
		if (i < c.s || i >= c.e) && isWordRune(v.runes[i]) {
			return false
		}
	}
	return true
}

// yearLike reports four digits from 1900 to 2099.
func yearLike(code string) bool {
	if len(code) != 4 {
		return false
	}
	y, err := strconv.Atoi(code)
	return err == nil && y >= 1900 && y <= 2099
}

// dateShaped reports eight digits that read as a date: YYYYMMDD, DDMMYYYY
// or MMDDYYYY.
func dateShaped(code string) bool {
	if len(code) != 8 {
		return false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	valid := func(y, m, d int) bool { return y >= 1900 && y <= 2099 && m >= 1 && m <= 12 && d >= 1 && d <= 31 }
	return valid(n(code[:4]), n(code[4:6]), n(code[6:])) ||
		valid(n(code[4:]), n(code[2:4]), n(code[:2])) ||
		valid(n(code[4:]), n(code[:2]), n(code[2:4]))
}

// trailingDigits reports a code whose digits all come after its letters.
func trailingDigits(code string) bool {
	i := strings.IndexFunc(code, unicode.IsDigit)
	return i > 0 && strings.IndexFunc(code[i:], unicode.IsLetter) < 0
}

// lettersThenDigits reports ids like "UA1234": letters, then only digits.
func lettersThenDigits(code string) bool {
	i := 0
	for i < len(code) && code[i] >= 'A' && code[i] <= 'Z' {
		i++
	}
	if i == 0 || i == len(code) {
		return false
	}
	for _, r := range code[i:] {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func allHex(code string) bool {
	for _, r := range code {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}
