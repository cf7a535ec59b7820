package attachments_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/email-mcp/email-mcp/attachments"
)

func TestSanitizeFilename(t *testing.T) {
	tests := []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"A\x00\u0311.txt", "\u0202.txt"}, // composed once the NUL is gone
		{"\u2000x\u2001", "x"},            // NFC maps U+2001 to U+2003: still trimmed
		{"../../etc/passwd", "passwd"},
		{`C:\Users\x\evil.exe`, "evil.exe"},
		{`..\..\windows\system32\config`, "config"},
		{"dir/", "dir"},
		{"dir/..", "attachment.bin"},
		{"Rechnung März.pdf", "Rechnung März.pdf"},
		{"Ma\u0308rz.pdf", "März.pdf"}, // NFD to NFC
		{"日本語の書類.pdf", "日本語の書類.pdf"},
		{"Ünïcödé ✓.txt", "Ünïcödé ✓.txt"},
		{"CON.txt", "_CON.txt"},
		{"con", "_con"},
		{"Com1.tar.gz", "_Com1.tar.gz"},
		{"LPT9", "_LPT9"},
		{"NUL .txt", "_NUL .txt"},
		{"aux.", "_aux"},
		{"CONSOLE.txt", "CONSOLE.txt"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"a\u2066b\u2069c\u200bd\ufeffe\u00adf.txt", "abcdef.txt"},
		{"evil.pdf\x00.exe", "evil.pdf.exe"},
		{"tab\there\r\n.txt", "tabhere.txt"},
		{"c1\u0085\u009f.txt", "c1.txt"},
		{`a<b>c:d"e|f?g*h.txt`, "a_b_c_d_e_f_g_h.txt"},
		{".env", "env"},
		{"..bashrc", "bashrc"},
		{" . .hidden. . ", "hidden"},
		{"trailing...", "trailing"},
		{"\xff\xfe.txt", "_.txt"}, // one "_" per run of bad bytes
		{"", "attachment.bin"},
		{"...", "attachment.bin"},
		{".", "attachment.bin"},
		{"/", "attachment.bin"},
		{"\x00\x01\u202e", "attachment.bin"},
		{strings.Repeat("a", 300) + ".pdf", strings.Repeat("a", 251) + ".pdf"},
		{strings.Repeat("ä", 200) + ".pdf", strings.Repeat("ä", 125) + ".pdf"},
		{strings.Repeat("b", 300), strings.Repeat("b", 255)},
		{"a." + strings.Repeat("x", 300), "a." + strings.Repeat("x", 253)},
		{"CON." + strings.Repeat("x", 300), "_CON." + strings.Repeat("x", 250)},
	}
	for _, tc := range tests {
		if got := attachments.SanitizeFilename(tc.in); got != tc.want {
			t.Errorf("SanitizeFilename(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSanitizeFilename checks the properties every sanitized name has, and
// that such a name is a valid workspace path that just does not exist yet.
func FuzzSanitizeFilename(f *testing.F) {
	for _, s := range []string{"report.pdf", "../../etc/passwd", "CON.txt", "invoice\u202Efdp.exe", "", "...",
		strings.Repeat("ä", 200) + ".pdf", "a\x00b", ". .x", "COM¹", "\u034f\u3164", `..\..\x`} {
		f.Add(s)
	}
	ws, _ := newWorkspace(f, 1<<20)
	f.Fuzz(func(t *testing.T, in string) {
		got := attachments.SanitizeFilename(in)
		if msg := badName(got); msg != "" {
			t.Fatalf("SanitizeFilename(%q) = %q: %s", in, got, msg)
		}
		if again := attachments.SanitizeFilename(got); again != got {
			t.Fatalf("SanitizeFilename(%q) = %q, not stable: then %q", in, got, again)
		}
		if _, err := ws.Stat("downloads/" + got); !errors.Is(err, attachments.ErrNotFound) {
			t.Fatalf("Stat(downloads/%q) = %v, want ErrNotFound", got, err)
		}
	})
}

// badName says what is wrong with a sanitized name, or "".
func badName(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > 255:
		return "longer than 255 bytes"
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case !norm.NFC.IsNormalString(s):
		return "not in NFC"
	case strings.ContainsAny(s, `/\`):
		return "holds a separator"
	case strings.HasPrefix(s, "."):
		return "starts with a dot"
	case isWindowsDevice(s):
		return "reserved Windows name"
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || strings.ContainsRune(`<>:"|?*`, r) {
			return "holds a forbidden character"
		}
	}
	return ""
}

// isWindowsDevice is the test's own account of reserved Windows names.
func isWindowsDevice(s string) bool {
	stem := strings.ToUpper(strings.TrimRight(strings.SplitN(s, ".", 2)[0], " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		return stem[3] >= '0' && stem[3] <= '9'
	}
	return false
}
