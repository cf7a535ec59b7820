// Package redact keeps secrets out of error texts that quote a server: a
// mail server may echo the command it refused (LOGIN "user" "password", an
// AUTH PLAIN line in base64), and those texts reach logs and `check`.
package redact

import (
	"encoding/base64"
	"strings"
)

// Error returns err with every secret replaced by "***" in its text, or err
// itself when its text holds none. The result unwraps to err, so errors.Is
// and errors.As see the same chain. Empty secrets are ignored.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := Text(text, secrets...)
	if clean == text {
		return err
	}
	return &redacted{err: err, text: clean}
}

// Text replaces every secret in s by "***".
func Text(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return s
}

// Password lists the forms a password takes in IMAP and SMTP commands:
// as is, quoted for IMAP (\ and " escaped), in base64 (SMTP AUTH LOGIN)
// and inside the base64 initial response of AUTH PLAIN (with and without
// an authorization identity equal to user).
func Password(user, pass string) []string {
	if pass == "" {
		return nil
	}
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(pass)
	enc := base64.StdEncoding.EncodeToString
	return []string{pass, quoted, enc([]byte(pass)),
		enc([]byte("\x00" + user + "\x00" + pass)), enc([]byte(user + "\x00" + user + "\x00" + pass))}
}

type redacted struct {
	err  error
	text string
}

func (r *redacted) Error() string { return r.text }
func (r *redacted) Unwrap() error { return r.err }

// Token lists the forms an OAuth 2.0 access token takes in a server's
// text: as is, and in base64 (alone; the SASL messages that carry it are
// the caller's to list, as it built them).
func Token(token string) []string {
	if token == "" {
		return nil
	}
	return []string{token, base64.StdEncoding.EncodeToString([]byte(token))}
}
