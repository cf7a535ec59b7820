package extract

import (
	"strings"
	"unicode"
)

// textWriter builds readable text the way a browser lays out inline text:
// runs of whitespace collapse to one space, and line breaks requested by
// blocks are written only once the next visible character arrives, so the
// text never starts or ends with blank lines and offsets taken while
// writing stay valid.
type textWriter struct {
	b      strings.Builder
	space  bool // a collapsed space is pending
	breaks int  // pending line breaks: 0, 1 or 2
}

// flush writes the pending separator before a visible character.
func (w *textWriter) flush() {
	switch {
	case w.b.Len() == 0:
	case w.breaks > 0:
		w.b.WriteString("\n\n"[:w.breaks])
	case w.space:
		w.b.WriteByte(' ')
	}
	w.space, w.breaks = false, 0
}

// text writes inline text, collapsing whitespace.
func (w *textWriter) text(s string) {
	for _, r := range s {
		switch {
		case isInvisible(r):
		case unicode.IsSpace(r):
			w.space = true
		default:
			w.flush()
			w.b.WriteRune(r)
		}
	}
}

// preformatted writes the text of a <pre> element, keeping its spaces and
// line breaks.
func (w *textWriter) preformatted(s string) {
	for _, r := range s {
		switch {
		case r == '\r' || isInvisible(r):
		case r == '\n':
			if w.b.Len() > 0 {
				w.flush()
				w.b.WriteByte('\n')
			}
		case unicode.IsSpace(r):
			w.flush()
			w.b.WriteByte(' ')
		default:
			w.flush()
			w.b.WriteRune(r)
		}
	}
}

// block asks for n line breaks (a paragraph for 2) before the next text.
func (w *textWriter) block(n int) {
	w.breaks = max(w.breaks, n)
}

// lineBreak is a <br>: one more line break, at most a blank line.
func (w *textWriter) lineBreak() {
	w.breaks = min(w.breaks+1, 2)
}
