package attachments

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	// fallbackName replaces a name that sanitizes to nothing.
	fallbackName = "attachment.bin"
	// maxExtBytes is the longest extension that truncation keeps.
	maxExtBytes = 32
)

// reservedNames are device names Windows will not use as file names, with or
// without an extension, in any case.
var reservedNames = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true, "CLOCK$": true,
	"COM0": true, "COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true,
	"COM7": true, "COM8": true, "COM9": true, "COM¹": true, "COM²": true, "COM³": true,
	"LPT0": true, "LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true,
	"LPT7": true, "LPT8": true, "LPT9": true, "LPT¹": true, "LPT²": true, "LPT³": true,
}

// SanitizeFilename reduces an attacker-supplied attachment name to one safe
// file name: the last path element ("\" counts as a separator), in NFC,
// without control, bidi or invisible characters, with <>:"/\|?* mapped to
// "_", without leading or trailing spaces and dots (so never a dotfile),
// with "_" before a reserved Windows device name (CON, COM1.txt ...), and at
// most 255 bytes with its extension kept. A name that ends up empty becomes
// "attachment.bin".
func SanitizeFilename(name string) string {
	name = lastElement(strings.ReplaceAll(strings.ToValidUTF8(name, "_"), `\`, "/"))
	// NFC comes after the characters are dropped (a dropped NUL between a
	// letter and a combining mark lets them compose) and before the trim
	// (NFC maps U+2000 to U+2002, both spaces).
	name = norm.NFC.String(strings.Map(mapRune, name))
	name = strings.TrimFunc(name, isSpaceOrDot)
	if name == "" {
		return fallbackName
	}
	name = truncateName(name)
	if isReserved(name) {
		name = truncateName("_" + name)
	}
	return name
}

// lastElement is the last non-empty element of a slash-separated path.
func lastElement(s string) string {
	s = strings.TrimRight(s, "/")
	return s[strings.LastIndexByte(s, '/')+1:]
}

// mapRune drops control and invisible characters and maps characters that
// some file systems forbid to "_".
func mapRune(r rune) rune {
	switch {
	case unicode.IsControl(r), isInvisible(r):
		return -1
	case strings.ContainsRune(`<>:"/\|?*`, r):
		return '_'
	}
	return r
}

// isSpaceOrDot reports the characters trimmed from both ends of a name.
func isSpaceOrDot(r rune) bool { return r == '.' || unicode.IsSpace(r) }

// isReserved reports a Windows device name: the part before the first dot,
// without trailing spaces, compared case-insensitively.
func isReserved(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	return reservedNames[strings.ToUpper(strings.TrimRight(stem, " "))]
}

// truncateName cuts name to maxNameBytes on a rune boundary, keeping its
// extension; it never returns "" for a non-empty name.
func truncateName(name string) string {
	if len(name) <= maxNameBytes {
		return name
	}
	stem, ext := splitExt(name)
	stem = strings.TrimRightFunc(cutBytes(stem, maxNameBytes-len(ext)), isSpaceOrDot)
	if stem == "" {
		stem = "attachment"
	}
	return stem + ext
}

// cutBytes returns the longest prefix of s that has at most n bytes and ends
// on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
