package message

import (
	"bytes"
	"io"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	gmcharset "github.com/emersion/go-message/charset" // registers the x/text charsets for go-message too
	htmlcharset "golang.org/x/net/html/charset"
)

// decodeCharset converts b from the charset named by label to valid UTF-8.
// A byte order mark decides over the label and is removed.
// It never fails: without a label, bytes that are not UTF-8 are read as
// windows-1252; an unknown label keeps the bytes, with invalid UTF-8 replaced.
func decodeCharset(b []byte, label string) string {
	label = normalizeLabel(label)
	if bomLabel, n := sniffBOM(b); n > 0 {
		b, label = b[n:], bomLabel // a byte order mark beats the label, as in browsers
	}
	switch label {
	case "", "us-ascii", "ascii", "us", "ansi_x3.4-1968", "iso646-us":
		// Declared ASCII that is not ASCII is, in practice, UTF-8 or a
		// Western 8-bit charset.
		if utf8.Valid(b) {
			return string(b)
		}
		return decodeWith(b, "windows-1252")
	case "utf-8", "utf8", "x-utf_8j", "unicode-1-1-utf-8":
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	if s, ok := decodeKnown(b, label); ok {
		return s
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// sniffBOM reports the charset of a leading byte order mark and its length.
func sniffBOM(b []byte) (string, int) {
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		return "utf-8", 3
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return "utf-16le", 2
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return "utf-16be", 2
	}
	return "", 0
}

// decodeWith decodes b with a label known to be supported.
func decodeWith(b []byte, label string) string {
	s, _ := decodeKnown(b, label)
	return s
}

// decodeKnown tries the WHATWG labels first (they map ISO-8859-1 and ASCII to
// windows-1252, as mail and browsers need), then go-message's IANA table.
func decodeKnown(b []byte, label string) (string, bool) {
	enc, name := htmlcharset.Lookup(label)
	if name == "replacement" {
		// WHATWG maps ISO-2022-KR, HZ and the like to a decoder that
		// outputs a single U+FFFD; keeping the bytes says more.
		return "", false
	}
	if enc != nil {
		if out, err := enc.NewDecoder().Bytes(b); err == nil {
			return strings.ToValidUTF8(string(out), "\uFFFD"), true
		}
	}
	r, err := gmcharset.Reader(label, bytes.NewReader(b))
	if err != nil {
		return "", false
	}
	out, err := io.ReadAll(r)
	if err != nil && len(out) == 0 {
		return "", false
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), true
}

// labelAliases maps charset labels seen in mail that neither the WHATWG nor
// the IANA table knows to the charset they are a variant of.
var labelAliases = map[string]string{
	"iso-2022-jp-2": "iso-2022-jp", "iso-2022-jp-3": "iso-2022-jp", "iso-2022-jp-ms": "iso-2022-jp",
	"cp50220": "iso-2022-jp", "cp50221": "iso-2022-jp", "cp50222": "iso-2022-jp",
	"cp932": "shift_jis", "x-ms-cp932": "shift_jis", "shift_jisx0213": "shift_jis",
	"cp949": "euc-kr", "cp950": "big5",
}

// normalizeLabel lowercases a charset label, strips quotes, blanks and an
// RFC 2231 language suffix ("utf-8*en"), and resolves labelAliases.
func normalizeLabel(label string) string {
	label = strings.ToLower(strings.Trim(strings.TrimSpace(label), `"'`))
	if i := strings.IndexByte(label, '*'); i >= 0 {
		label = label[:i]
	}
	label = strings.TrimSpace(label)
	if alias, ok := labelAliases[label]; ok {
		return alias
	}
	return label
}

// latin1Word matches the start of an ISO-8859-1 encoded word. The
// WordDecoder decodes that charset itself, without CharsetReader, as true
// ISO-8859-1: the windows-1252 characters senders put there (€, “, ” from
// Outlook) became control characters, while the same bytes in a body read
// as windows-1252. windowsWords relabels such words first.
var latin1Word = regexp.MustCompile(`(?i)=\?iso-8859-1\?`)

// windowsWords relabels ISO-8859-1 encoded words as windows-1252 (its
// superset, as browsers read it).
func windowsWords(v string) string {
	if !strings.Contains(v, "=?") {
		return v
	}
	return latin1Word.ReplaceAllString(v, "=?windows-1252?")
}

// wordDecoder decodes RFC 2047 encoded words in any charset decodeCharset
// knows; unknown charsets keep their bytes instead of failing the header.
// Its input goes through windowsWords first.
var wordDecoder = &mime.WordDecoder{CharsetReader: func(label string, input io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(input)
	if err != nil {
		return nil, err
	}
	return strings.NewReader(decodeCharset(b, label)), nil
}}

// DecodeText decodes a text part (mediaType "text/plain" or "text/html",
// params its Content-Type parameters with lower-case keys) exactly as
// [ParseBodies] does, for a part fetched on its own: first the
// Content-Transfer-Encoding (base64, quoted-printable, 7bit, 8bit, binary;
// "" means 7bit), then the charset to UTF-8 (an HTML part without one is
// read in its <meta charset>, as is one labelled US-ASCII that holds 8-bit
// bytes), line endings to "\n", and format=flowed
// text/plain unwrapped (RFC 3676). Damaged base64 and quoted-printable are
// decoded as far as they make sense, never rejected. An unknown transfer
// encoding returns the body undecoded (as valid UTF-8) together with an
// error matching [ErrUnknownEncoding].
func DecodeText(body []byte, mediaType string, params map[string]string, encoding string) (string, error) {
	raw, err := decodeTransfer(body, encoding)
	label := params["charset"]
	// US-ASCII counts as no label: IMAP servers report it for a text part
	// without a charset (RFC 3501 BODYSTRUCTURE default), and declared
	// ASCII with 8-bit bytes is wrong anyway.
	if mediaType == "text/html" && (label == "" || strings.EqualFold(strings.Trim(label, `" `), "us-ascii")) && !utf8.Valid(raw) {
		_, label, _ = htmlcharset.DetermineEncoding(raw, "text/html")
	}
	s := normalizeNewlines(decodeCharset(raw, label))
	if mediaType == "text/plain" && strings.EqualFold(params["format"], "flowed") {
		s = unflow(s, strings.EqualFold(params["delsp"], "yes"))
	}
	return s, err
}

// decodeTransfer undoes a Content-Transfer-Encoding.
func decodeTransfer(body []byte, encoding string) ([]byte, error) {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(encoding), `"`)) {
	case "", "7bit", "8bit", "binary", "7-bit", "8-bit":
		return body, nil
	case "base64":
		return decodeBase64(body), nil
	case "quoted-printable":
		return decodeQP(body), nil
	default:
		return body, ErrUnknownEncoding
	}
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
