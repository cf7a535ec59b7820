package message

import (
	"strings"
	"unicode"
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
}

// text writes the content of a text node.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.preText(s)
		return
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			w.space = true
			continue
		}
		if w.pendingNL > 0 || w.lineStart || w.space || w.cellSep || w.b.Len() == 0 {
			w.startContent()
		}
		w.writeRune(r)
	}
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
				w.writeRune(r)
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
		if w.quote > 0 {
			w.appendRaw(strings.Repeat("> ", min(w.quote, maxIndent)))
		}
		w.appendRaw(w.marker)
	case w.cellSep && w.last != ' ':
		w.appendRaw(" | ")
	case w.space && w.b.Len() > 0 && w.last != ' ':
		w.writeRune(' ')
	}
	w.space, w.cellSep, w.marker = false, false, ""
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
	w.last = r
	if r == '\n' {
		w.lineStart = true
	}
}

// String returns the text with trailing blanks cut from every line, at most
// two blank lines in a row and no blank lines at either end.
func (w *textWriter) String() string {
	lines := strings.Split(w.b.String(), "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			if blank > maxNewlines-1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}
