package extract

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

// source names where a piece of text came from; the order breaks ties.
type source int

const (
	fromSubject source = iota
	fromText
	fromHTML
)

// textView is one text prepared for scanning: its runes, a normalized
// lowercase copy for keyword search, and what lies where.
type textView struct {
	src     string
	from    source
	runes   []rune
	off     []int // byte offset of each rune in src; off[len(runes)] == len(src)
	masked  []bool
	spans   []span // short HTML elements, by rune offsets
	hits    []hit  // keywords, left to right
	numbers []runeRange
}

// runeRange is a half-open range of rune offsets.
type runeRange struct{ s, e int }

func newView(src string, from source, spans []message.Span) *textView {
	n := utf8.RuneCountInString(src)
	v := &textView{src: src, from: from, runes: make([]rune, 0, n), off: make([]int, 0, n+1)}
	for i, r := range src {
		v.runes = append(v.runes, r)
		v.off = append(v.off, i)
	}
	v.off = append(v.off, len(src))
	v.masked = make([]bool, len(v.runes))
	v.maskURLs()
	v.maskEmails()
	if from == fromText {
		v.maskQuoted()
	}
	lower := normalizeRunes(v.runes)
	for i, m := range v.masked {
		if m {
			lower[i] = 0
		}
	}
	v.hits = otpIndex.find(lower)
	v.spans = v.runeSpans(spans)
	return v
}

// runeAt returns the byte offset's rune index (the first rune at or after it).
func (v *textView) runeAt(byteOff int) int {
	lo, hi := 0, len(v.off)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if v.off[mid] < byteOff {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// runeSpans converts spans to rune offsets, sorted by start.
func (v *textView) runeSpans(spans []message.Span) []span {
	out := make([]span, len(spans))
	for i, s := range spans {
		out[i] = span{start: v.runeAt(s.Start), end: v.runeAt(s.End), styled: s.Emphasized}
	}
	slices.SortStableFunc(out, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	return out
}

// maskURLs marks the runes of URLs: their digits are never codes and their
// words never keywords.
func (v *textView) maskURLs() {
	for _, u := range findURLs(v.src) {
		for i := v.runeAt(u.start); i < v.runeAt(u.end); i++ {
			v.masked[i] = true
		}
	}
}

// maskQuoted marks the lines of quoted reply history ("> ..."): an old
// code there is not the one awaited, and its words label nothing.
func (v *textView) maskQuoted() {
	for _, q := range quotedLines(v.src) {
		for i := v.runeAt(q.s); i < v.runeAt(q.e); i++ {
			v.masked[i] = true
		}
	}
}

// quotedLines returns the byte ranges of the lines of a plain text that
// start with '>' (after spaces), as replies quote earlier mail, and of all
// the text after a separator that starts a quoted mail without marks
// ("-----Original Message-----", Outlook's line of underscores before
// "From:").
func quotedLines(text string) []runeRange {
	var out []runeRange
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := strings.TrimSpace(text[start:end])
		if historySeparator(line, text[min(end+1, len(text)):]) {
			return append(out, runeRange{start, len(text)})
		}
		if strings.HasPrefix(line, ">") {
			out = append(out, runeRange{start, end})
		}
		start = end + 1
	}
	return out
}

// historySeparator reports a line that starts quoted history: a dashed
// "Original Message" line in the languages of the keyword tables, or a
// line of underscores followed by a "From:" line.
func historySeparator(line, rest string) bool {
	if strings.HasPrefix(line, "-----") && strings.HasSuffix(line, "-----") {
		l := strings.ToLower(strings.Trim(line, "- "))
		switch l {
		case "original message", "ursprüngliche nachricht", "originalnachricht", "message d'origine",
			"mensaje original", "mensagem original", "messaggio originale", "oorspronkelijk bericht":
			return true
		}
		return false
	}
	if len(line) < 20 || strings.Trim(line, "_") != "" {
		return false
	}
	next, _, _ := strings.Cut(strings.TrimLeft(rest, " \t\r\n"), ":")
	switch strings.ToLower(next) {
	case "from", "von", "de", "da", "van":
		return true
	}
	return false
}

// maskEmails marks the runes of e-mail addresses.
func (v *textView) maskEmails() {
	for at, r := range v.runes {
		if r != '@' {
			continue
		}
		s := at
		for s > 0 && isEmailRune(v.runes[s-1], true) {
			s--
		}
		e := at + 1
		for e < len(v.runes) && isEmailRune(v.runes[e], false) {
			e++
		}
		if s < at && e > at+1 {
			for i := s; i < e; i++ {
				v.masked[i] = true
			}
		}
	}
}

func isEmailRune(r rune, local bool) bool {
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-') {
		return true
	}
	return local && (r == '_' || r == '+' || r == '%')
}

// distance is how far apart two rune offsets a <= b are for reading: the
// runes between, plus 25 for each sentence end and 8 for each line break
// that does not follow a colon. It stops counting past limit.
func (v *textView) distance(a, b, limit int) int {
	d := 0
	for i := a; i < b && d <= limit; i++ {
		d++
		switch r := v.runes[i]; {
		case r == '\n' && !v.afterColon(i):
			d += 8
		case isSentenceEnd(r) && (i+1 >= len(v.runes) || unicode.IsSpace(v.runes[i+1]) || r > unicode.MaxASCII):
			d += 25
		}
	}
	return d
}

// afterColon reports whether the last visible rune before i is a colon.
func (v *textView) afterColon(i int) bool {
	for j := i - 1; j >= 0; j-- {
		r := v.runes[j]
		if !unicode.IsSpace(r) {
			return r == ':' || r == '：'
		}
	}
	return false
}

func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}
