package message

import (
	"bytes"
	"encoding/base64"
)

// decodeBase64 decodes base64 leniently, as mail readers do: characters
// outside the alphabet (line breaks, blanks, stray punctuation) are skipped,
// padding is optional and decoding stops at the first padding character.
// A dangling single character at the end is dropped.
func decodeBase64(b []byte) []byte {
	clean := make([]byte, 0, len(b))
	for _, c := range b {
		switch {
		case c == '=':
			return decodeRawBase64(clean)
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		}
	}
	return decodeRawBase64(clean)
}

// decodeRawBase64 decodes unpadded base64 made only of alphabet characters.
func decodeRawBase64(clean []byte) []byte {
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, _ := base64.RawStdEncoding.Decode(out, clean) // cannot fail on a clean alphabet, but keep what decoded
	return out[:n]
}

// decodeQP decodes quoted-printable leniently: "=XY" with hex digits of
// either case is a byte, "=" at the end of a line is a soft line break, and
// any other "=" is kept as it is (senders that forget to escape "=" in URLs
// are common). Trailing blanks on a line are transport padding and dropped.
func decodeQP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		line, rest, hasNL := bytes.Cut(b, []byte("\n"))
		b = rest
		line = bytes.TrimRight(bytes.TrimSuffix(line, []byte("\r")), " \t")
		soft := bytes.HasSuffix(line, []byte("="))
		if soft {
			line = line[:len(line)-1]
		}
		out = appendQPLine(out, line)
		if hasNL && !soft {
			out = append(out, '\r', '\n')
		}
	}
	return out
}

// appendQPLine appends the decoded bytes of one quoted-printable line.
func appendQPLine(out, line []byte) []byte {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '=' && i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2]) {
			out = append(out, unhex(line[i+1])<<4|unhex(line[i+2]))
			i += 2
			continue
		}
		out = append(out, c)
	}
	return out
}

// isHex reports a hexadecimal digit of either case.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unhex returns the value of a hexadecimal digit.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
