package config

import "testing"

func TestSafeValue(t *testing.T) {
	for in, want := range map[string]string{
		"imaps://agent:pw@imap.example.com":      "imaps://***@imap.example.com",
		"agent:pw@imap.example.com":              "***@imap.example.com",
		"https://x.example/?token=pw#frag":       "https://x.example/?…",
		"https://u@x.example/path?q":             "https://***@x.example/path?…",
		"agent@example.com":                      "agent@example.com",
		"Agent <agent@example.com>":              "Agent <agent@example.com>",
		"imap.example.com:993":                   "imap.example.com:993",
		"Evil\r\nBcc: x@example.com":             "Evil\r\nBcc: x@example.com",
		"https://mail.example.com/mcp":           "https://mail.example.com/mcp",
		"https://mail.example.com/a@b/?t=secret": "https://mail.example.com/a@b/?…",
	} {
		if got := safeValue(in); got != want {
			t.Errorf("safeValue(%q) = %q, want %q", in, got, want)
		}
	}
}
