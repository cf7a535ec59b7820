package message

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNewlines caps consecutive line breaks: at most two blank lines.
const maxNewlines = 3

// maxIndent caps the "> " of nested quotes and the indent of nested lists:
// each is written on every line, and deeper nesting made a few KB of HTML
// render to megabytes of prefixes (a line at depth D costs D of them).
const maxIndent = 8

// textWriter accumulates rendered text. Breaks and separators are pending
// until the next visible content, so that trailing breaks never pile up and
// whitespace collapses the way a browser collapses it.
type textWriter struct {
	b         strings.Builder
	pendingNL int    // line breaks wanted before the next content
	space     bool   // collapsed whitespace wanted before the next content
	cellSep   bool   // " | " wanted before the next content on this line
	lineStart bool   // the last thing written was a line break
	quote     int    // blockquote depth: lines start with "> " per level
	pre       int    // inside <pre>: whitespace is kept
	last      rune   // the last rune written
	marker    string // list marker ("- ", "2. ") wanted before the next content
	inLink    int    // open links: every rune written goes to linkText too
	linkText  []byte // the text of the open links
	teeOff    bool   // what is written now is no link text (an image's label)
	labels    int    // decorations (labels, markers, separators) written inside links
	awaiting  bool   // a link was opened and no content written since
	awaitedAt int    // where the first content after the last link opened starts
}

// text writes the content of a text node.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.preText(s)
		return
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case unicode.IsSpace(r):
			w.space = true
		case IsPadding(r):
		default:
			if w.pendingNL > 0 || w.lineStart || w.space || w.cellSep || w.b.Len() == 0 || w.awaiting {
				w.startContent()
			}
			if r >= utf8.RuneSelf {
				w.writeRune(r)
				break
			}
			// A run of ASCII that is no space is written at once.
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && !asciiSpace[s[j]] {
				j++
			}
			w.writeASCII(s[i:j])
			size = j - i
		}
		i += size
	}
}

// asciiSpace are the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// writeASCII writes a run of ASCII without line breaks and remembers it.
func (w *textWriter) writeASCII(s string) {
	w.b.WriteString(s)
	if w.inLink > 0 && !w.teeOff {
		w.linkText = append(w.linkText, s...)
	}
	w.last = rune(s[len(s)-1])
}

// preText writes preformatted text: blanks kept, newlines hard.
func (w *textWriter) preText(s string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.lineBreak()
		}
		if line != "" {
			w.startContent()
			for _, r := range line {
				if !IsPadding(r) {
					w.writeRune(r)
				}
			}
		}
	}
}

// inline writes a token (a list marker, an image label) as content.
func (w *textWriter) inline(s string) {
	w.startContent()
	for _, r := range s {
		w.writeRune(r)
	}
}

// appendRaw writes s right after the last content, before any pending
// break (a link target after its text).
func (w *textWriter) appendRaw(s string) {
	for _, r := range s {
		w.writeRune(r)
	}
}

// startContent flushes what is pending before visible content.
func (w *textWriter) startContent() {
	if w.b.Len() == 0 {
		w.lineStart = true // the first line: a quote's "> " and a marker are due
	}
	if w.pendingNL > 0 && w.b.Len() > 0 {
		for range min(w.pendingNL, maxNewlines) {
			w.writeRune('\n')
		}
		w.lineStart = true
	}
	w.pendingNL = 0
	switch {
	case w.lineStart:
		w.lineStart = false
		w.decorate(quotePrefix[:2*min(w.quote, maxIndent)])
		w.decorate(w.marker)
	case w.cellSep && w.last != ' ':
		if w.inLink > 0 && !w.teeOff {
			w.linkText = append(w.linkText, ' ')
		}
		w.decorate(" | ")
	case w.space && w.b.Len() > 0 && w.last != ' ':
		w.writeRune(' ')
	}
	w.space, w.cellSep, w.marker = false, false, ""
	if w.awaiting { // the links opened since the last content start here
		w.awaiting, w.awaitedAt = false, w.b.Len()
	}
}

// quotePrefix is the "> " of maxIndent nested quotes.
const quotePrefix = "> > > > > > > > "

// decorate writes layout that is not part of a link's text: a quote's
// "> ", a list marker, a cell separator, an image's label.
func (w *textWriter) decorate(s string) {
	if s == "" {
		return
	}
	if w.inLink > 0 {
		w.labels++
	}
	off := w.teeOff
	w.teeOff = true
	w.appendRaw(s)
	w.teeOff = off
}

// listMarker starts a list item on a new line; its marker is written with
// the item's first content, so that a block inside the item
// ("<li><p>text</p></li>") does not leave the marker alone on a line.
func (w *textWriter) listMarker(m string) {
	w.marker = ""
	w.block(1)
	w.marker = m
	if w.b.Len() == 0 {
		w.lineStart = true // the first line of the text: no break to write
	}
}

// block asks for at least n line breaks before the next content (1: new
// line, 2: blank line). Nothing is asked at the very start, nor between a
// list marker and its item's first content.
func (w *textWriter) block(n int) {
	if w.marker != "" {
		return
	}
	if w.b.Len() > 0 && w.pendingNL < n {
		w.pendingNL = n
	}
	w.space, w.cellSep = false, false
}

// lineBreak adds one hard line break (<br>, a newline in <pre>).
func (w *textWriter) lineBreak() {
	if w.b.Len() > 0 {
		w.pendingNL++
	}
	w.space, w.cellSep = false, false
}

// writeRune writes one rune and remembers it.
func (w *textWriter) writeRune(r rune) {
	w.b.WriteRune(r)
	if w.inLink > 0 && !w.teeOff {
		w.linkText = utf8.AppendRune(w.linkText, r)
	}
	w.last = r
	if r == '\n' {
		w.lineStart = true
	}
}

// finish returns the text with trailing blanks cut from every line, at
// most two blank lines in a row and no blank lines at either end, and the
// lines kept (if withLines, else nil), to move offsets into the buffer to
// offsets into the text.
func (w *textWriter) finish(withLines bool) (string, lineMap) {
	raw := w.b.String()
	if isFinished(raw) {
		return raw, nil
	}
	var out strings.Builder
	out.Grow(len(raw))
	var lines lineMap
	kept, lastLen := 0, 0 // lines kept; the last one's length
	blank := 0
	for start := 0; start <= len(raw); {
		end := strings.IndexByte(raw[start:], '\n')
		if end < 0 {
			end = len(raw)
		} else {
			end += start
		}
		l := strings.TrimRight(raw[start:end], " \t")
		keep := true
		if l == "" {
			blank++
			keep = blank <= maxNewlines-1 && kept > 0
		} else {
			blank = 0
		}
		if keep {
			if kept > 0 {
				out.WriteByte('\n')
			}
			kept, lastLen = kept+1, len(l)
			if withLines {
				lines = append(lines, keptLine{raw: start, out: out.Len(), n: len(l)})
			}
			out.WriteString(l)
		}
		start = end + 1
	}
	text := out.String()
	if lastLen == 0 && kept > 0 { // trailing blank lines (at most two)
		text = strings.TrimRight(text, "\n")
	}
	for len(lines) > 0 && lines[len(lines)-1].n == 0 {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = lineMap{} // not the identity
	}
	return text, lines
}

// isFinished reports a text that finish would not change: no blanks at the
// end of a line, no more than two blank lines in a row, no blank line at
// either end.
func isFinished(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '\n' || s[len(s)-1] == '\n' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	return !strings.Contains(s, " \n") && !strings.Contains(s, "\t\n") && !strings.Contains(s, "\n\n\n\n")
}

// finished returns the finished text alone.
func (w *textWriter) finished() string {
	t, _ := w.finish(false)
	return t
}

// keptLine is a line of the text: where it starts in the buffer and in the
// text, and its length.
type keptLine struct{ raw, out, n int }

// lineMap is the lines kept by finish, in order.
type lineMap []keptLine

// at moves a buffer offset to the text: within its line, or to the end of
// the last kept line before it when its line was dropped or trimmed. A nil
// map is the identity (finish changed nothing).
func (m lineMap) at(p int) int {
	if m == nil {
		return p
	}
	lo, hi := 0, len(m)
	for lo < hi {
		mid := (lo + hi) / 2
		if m[mid].raw <= p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0
	}
	l := m[lo-1]
	return l.out + min(p-l.raw, l.n)
}

// IsPadding reports the zero-width characters mail uses as padding (the
// zero-width space and non-joiner, the word joiner, the byte-order mark,
// the soft hyphen, the combining grapheme joiner): browsers show nothing
// for them, and the HTML renderer drops them.
func IsPadding(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u2060', '\ufeff', '\u00ad', '\u034f':
		return true
	}
	return false
}

// isBlankOrPadding reports whitespace and padding characters.
func isBlankOrPadding(r rune) bool {
	return unicode.IsSpace(r) || IsPadding(r)
}
