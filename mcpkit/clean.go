package mcpkit

import (
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

// Cleaning every string a tool returns.
//
// SECURITY.md promises that no returned field carries hidden or control
// characters. Handlers clean what they know to be untrusted, but a field
// forgotten there (an address, a Message-ID, a content type, a link) let
// bidi overrides, ESC and newlines through. So wrap cleans once more, at
// the one place every tool's result passes: the JSON it is marshalled to.
// Cleaning the JSON rather than the Go value reaches every string whatever
// its type (maps, RawMessage, custom marshallers) and needs nothing from a
// new tool. Each string is cleaned by the key it is under (the key of the
// array it is in, for an element):
//
//   - body_text and body_html, bodies of several lines: message.CleanText
//     (keeps "\n" and "\t");
//   - link, links and magic_link: message.CleanURL (percent-encodes, so the
//     link stays a valid URL for the same resource);
//   - every other value, and every key: message.CleanLine.
//
// A result with a hidden_characters_removed field (read_email's) learns
// that something was removed anywhere in it (HiddenMarker), and is
// marshalled again. Strings with nothing to clean are found without being
// decoded (plain ASCII and the escapes encoding/json writes for <, >, &),
// so a search page costs one scan of its bytes.

// HiddenMarker is a result that reports removed hidden characters (a
// hidden_characters_removed field): MarkHidden sets it.
type HiddenMarker interface{ MarkHidden() }

// Keys whose values are not one line: bodies and links.
const (
	keyLine = iota
	keyBody
	keyLink
)

// keyKind tells the values of key apart (a switch: no map lookup per string).
func keyKind(key []byte) int {
	switch string(key) {
	case "body_text", "body_html":
		return keyBody
	case "link", "links", "magic_link":
		return keyLink
	}
	return keyLine
}

// CleanResult returns text (out marshalled) with every string cleaned,
// and whether it changed; out is marked when something was removed.
func CleanResult(out any, text []byte) ([]byte, bool) {
	cleaned, changed, removed := cleanJSON(text)
	if !removed {
		return cleaned, changed
	}
	if m, ok := out.(HiddenMarker); ok {
		m.MarkHidden()
		if again, err := json.Marshal(out); err == nil {
			cleaned, _, _ = cleanJSON(again)
		}
	}
	return cleaned, true
}

// jsonFrame is an object or array being scanned.
type jsonFrame struct {
	object  bool
	key     []byte // object: the current key; array: the key it is under (JSON text, unquoted)
	wantKey bool   // object: the next string is a key
}

// structural marks the bytes cleanJSON acts on outside strings.
var structural = func() (t [256]bool) {
	for _, c := range []byte(`{}[],"`) {
		t[c] = true
	}
	return t
}()

// cleanJSON cleans every string of valid JSON, keys included. changed
// reports that out differs from in, removed that a hidden character was
// removed or encoded (not merely a tab made a space).
func cleanJSON(in []byte) (out []byte, changed, removed bool) {
	stack := make([]jsonFrame, 0, 8)
	last := 0 // in[last:] is not copied to out yet
	for i := 0; i < len(in); {
		for i < len(in) && !structural[in[i]] {
			i++ // numbers, literals, ':' and white space
		}
		if i >= len(in) {
			break
		}
		switch in[i] {
		case '{', '[':
			f := jsonFrame{object: in[i] == '{', wantKey: in[i] == '{'}
			if n := len(stack); n > 0 {
				f.key = stack[n-1].key
			}
			stack = append(stack, f)
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
			i++
		case '"':
			var top *jsonFrame
			if n := len(stack); n > 0 {
				top = &stack[n-1]
			}
			isKey := top != nil && top.object && top.wantKey
			clean := message.CleanLine
			keepsLines, link := false, false
			if !isKey && top != nil {
				switch keyKind(top.key) {
				case keyBody:
					clean, keepsLines = message.CleanText, true
				case keyLink:
					clean, link = message.CleanURL, true
				}
			}
			end, simple := scanString(in, i, keepsLines, link)
			if isKey {
				top.key, top.wantKey = in[i+1:end-1], false // our keys need no unescaping
			}
			if !simple {
				var s string
				if json.Unmarshal(in[i:end], &s) == nil {
					if c, rm := clean(s); c != s {
						enc, _ := json.Marshal(c)
						out = append(append(out, in[last:i]...), enc...)
						last, changed, removed = end, true, removed || rm
					}
				}
			}
			i = end
		default:
			i++
		}
	}
	if !changed {
		return in, false, false
	}
	return append(out, in[last:]...), true, removed
}

// stringStop marks the bytes scanString looks at: the others are plain
// printable ASCII.
var stringStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == ' '
	}
	return t
}()

// scanString returns the index after the JSON string that starts at
// in[i], and whether it is simple: no character that cleaning changes
// (message.IsHidden, a space in a link), no escape but \" \\ \/ and
// encoding/json's \u003c \u003e \u0026 (and \n \t in a body). Only
// strings that are not simple are decoded.
func scanString(in []byte, i int, keepsLines, link bool) (end int, simple bool) {
	simple = true
	for j := i + 1; j < len(in); j++ {
		for j < len(in) && !stringStop[in[j]] {
			j++
		}
		if j >= len(in) {
			break
		}
		c := in[j]
		switch {
		case c == '"':
			return j + 1, simple
		case c == '\\' && j+1 < len(in):
			j++
			switch in[j] {
			case '"', '\\', '/':
			case 'n', 't':
				simple = simple && keepsLines
			case 'u':
				if j+4 < len(in) {
					u := string(in[j+1 : j+5])
					simple = simple && (u == "003c" || u == "003e" || u == "0026")
					j += 4
				}
			default:
				simple = false
			}
		case c == ' ':
			simple = simple && !link
		case c < 0x20 || c == 0x7f:
			simple = false
		case c >= 0x80 && simple:
			r, n := utf8.DecodeRune(in[j:])
			simple = !message.IsHidden(r) && r != utf8.RuneError && !(link && (unicode.IsSpace(r) || unicode.In(r, unicode.Z)))
			j += n - 1
		}
	}
	return len(in), false
}

// cleanError returns e with its message cleaned (it quotes arguments and
// names from the mailbox).
func cleanError(e *Error) *Error {
	m, _ := message.CleanLine(e.Message)
	if m == e.Message {
		return e
	}
	c := *e
	c.Message = m
	return &c
}

// FormatTime renders a time of a result as RFC 3339, or "" for the zero
// time: the one time format of every tool's results.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
