// Package message turns raw RFC 5322 mail into what the read_email tool shows:
// decoded header fields, the main text and HTML bodies as UTF-8, a readable
// text rendering of HTML, and rune-safe windows over long bodies.
//
// Everything here is a pure function of the bytes it is given: no I/O, no
// clock, no network. The input is untrusted and often broken, so the package
// is lenient by design: a malformed From, an unknown charset, a bad base64
// line or a message cut short never fail the whole message; the functions
// return what they could decode, always as valid UTF-8.
//
// # Header
//
// [ParseHeader] reads the header block of a whole message or of any prefix of
// one (as fetched with BODY.PEEK[]<0.N>). RFC 2047 encoded words are decoded
// in any charset that golang.org/x/text knows (ISO-8859-*, windows-125x,
// ISO-2022-JP, Shift_JIS, EUC-KR, GBK, ...). Raw 8-bit header bytes that are
// not UTF-8 are decoded with the message's declared charset, or as
// windows-1252. Address lists that net/mail rejects are split and salvaged
// one address at a time.
//
// # Bodies
//
// [ParseBodies] walks the MIME tree of a whole message and picks the first
// text/plain and the first text/html part that is neither an attachment nor
// inside a forwarded message/rfc822. [DecodeText] does the same decoding
// (transfer encoding, charset, format=flowed) for a part fetched on its own,
// so a large message, whose text parts are fetched alone, reads the same. Labels are
// resolved as a browser would (ISO-8859-1 is read as its superset
// windows-1252); a label nobody knows keeps the bytes, with invalid UTF-8
// replaced by U+FFFD. Line endings become "\n"; format=flowed text is
// unwrapped.
//
// # Rendering
//
// [HTMLToText] renders HTML as plain text for a reader (human or model):
// blocks become lines, lists get "- " markers, links keep their target as
// "text (url)", tables become rows with " | " between cells, and invisible
// content (script, style, head, comments, display:none preheaders, tracking
// pixels) is dropped. [RenderHTML] is the same renderer with where each link
// and each short or emphasized element lies in the text: package extract
// scores codes and links over it, so the extractors read what read_email
// shows. [CleanText] removes invisible and bidi control
// characters that could hide text from a human reviewer ([CleanLine] for one
// line, [CleanURL] percent-encodes them in a link), and [Window] cuts a
// long body into chunks by rune offsets for the max_chars/offset arguments.
package message
