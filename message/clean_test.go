package message_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/email-mcp/email-mcp/message"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
		removed        bool
	}{
		{"plain text untouched", "Hello,\n\tworld 🙂 café", "Hello,\n\tworld 🙂 café", false},
		{"CRLF normalized, not reported", "a\r\nb\rc", "a\nb\nc", false},
		{"zero-width space and joiners", "pass\u200bword \u200c\u200d", "password ", true},
		{"LRM and RLM", "a\u200eb\u200fc", "abc", true},
		{"bidi override hides a file extension", "invoice\u202efdp.exe", "invoicefdp.exe", true},
		{"bidi embeddings and isolates", "\u202aa\u202b\u202c\u202d\u2066b\u2067\u2068\u2069", "ab", true},
		{"BOM and soft hyphen", "\ufeffsoft\u00adhyphen", "softhyphen", true},
		{"word joiner and invisible operators (other Cf)", "x\u2060y\u2062z", "xyz", true},
		{"tag characters (ASCII smuggling)", "ok\U000E0049\U000E0047\U000E004E\U000E007F", "ok", true},
		{"Arabic letter mark and Mongolian vowel separator", "a\u061cb\u180ec", "abc", true},
		{"control characters other than newline and tab", "a\x00b\x1bc\x7fd\u0085e", "abcde", true},
		{"invalid UTF-8 replaced, not reported", "a\xffb", "a\ufffdb", false},
		{"empty", "", "", false},
		{"line and paragraph separators are line breaks", "a\u2028b\u2029c", "a\nb\nc", false},
		{"fillers and other default ignorables", "a\u034fb\u115f\u1160c\u3164d\uffa0e\u17b4\U000E0100f", "abcdef", true},
		{"noncharacters", "a\ufdd0b\uffffc\U0010FFFE", "abc", true},
		{"emoji presentation kept after a character", "ok \u2764\ufe0f \u263a\ufe0e", "ok \u2764\ufe0f \u263a\ufe0e", false},
		{"variation selectors smuggling bytes", "\U0001F600\ufe01\U000E0142\U000E0143", "\U0001F600", true},
		{"a presentation selector alone or repeated", "\ufe0fa\ufe0f\ufe0f \ufe0f", "a\ufe0f ", true},
	}
	for _, tc := range tests {
		got, removed := message.CleanText(tc.in)
		if got != tc.want || removed != tc.removed {
			t.Errorf("%s: CleanText(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, removed, tc.want, tc.removed)
		}
	}
}

func TestCleanLine(t *testing.T) {
	tests := []struct {
		name, in, want string
		removed        bool
	}{
		{"plain", "Re: Invoice #42 <a@b.example>", "Re: Invoice #42 <a@b.example>", false},
		{"tab becomes a space, not reported", "a\tb", "a b", false},
		{"line breaks become one space each", "a\r\nBcc: x\ny\rz\u2028w", "a Bcc: x y z w", true},
		{"escape sequences", "a\x1b[31mred\x1b[0m", "a[31mred[0m", true},
		{"bidi override in a file name", "report\u202egpj.exe", "reportgpj.exe", true},
		{"C1 controls and DEL", "a\u009bb\x7fc", "abc", true},
		{"tags", "id\U000E0041@x", "id@x", true},
		{"emoji kept", "\u2705\ufe0f done", "\u2705\ufe0f done", false},
	}
	for _, tc := range tests {
		got, removed := message.CleanLine(tc.in)
		if got != tc.want || removed != tc.removed {
			t.Errorf("%s: CleanLine(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, removed, tc.want, tc.removed)
		}
	}
}

func TestCleanURL(t *testing.T) {
	tests := []struct {
		name, in, want string
		encoded        bool
	}{
		{"plain", "https://app.example/verify?t=abc&u=1#x", "https://app.example/verify?t=abc&u=1#x", false},
		{"non-ASCII letters stay", "https://b\u00fccher.example/caf\u00e9", "https://b\u00fccher.example/caf\u00e9", false},
		{"zero-width and bidi encoded", "https://a.example/\u200bx\u202e", "https://a.example/%E2%80%8Bx%E2%80%AE", true},
		{"controls and spaces encoded", "https://a.example/a b\tc\nd\x1b\u00a0", "https://a.example/a%20b%09c%0Ad%1B%C2%A0", true},
		{"variation selectors encoded", "https://a.example/\ufe0f", "https://a.example/%EF%B8%8F", true},
	}
	for _, tc := range tests {
		got, encoded := message.CleanURL(tc.in)
		if got != tc.want || encoded != tc.encoded {
			t.Errorf("%s: CleanURL(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, encoded, tc.want, tc.encoded)
		}
	}
}

// FuzzClean: what CleanText, CleanLine and CleanURL return has no control
// or format character (but for "\n" and "\t" in a text), a link no space,
// and cleaning it again changes nothing.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a\u202eb", "x\r\ny\u2028", "\u2764\ufe0f\ufe0f", "https://a.example/\u200b b", "\x00\x1b\u0085\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []struct {
			name  string
			f     func(string) (string, bool)
			allow string
		}{{"CleanText", message.CleanText, "\n\t"}, {"CleanLine", message.CleanLine, ""}, {"CleanURL", message.CleanURL, ""}} {
			got, _ := c.f(s)
			for _, r := range got {
				bad := unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r) && !strings.ContainsRune(c.allow, r)
				if c.name == "CleanURL" {
					bad = bad || unicode.IsSpace(r) || r >= 0xFE00 && r <= 0xFE0F
				}
				if bad {
					t.Fatalf("%s(%q) = %q: has %U", c.name, s, got, r)
				}
			}
			if again, changed := c.f(got); again != got || changed {
				t.Fatalf("%s(%q) = %q, and again %q, %v: want no change", c.name, s, got, again, changed)
			}
		}
	})
}
