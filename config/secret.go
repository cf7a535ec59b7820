package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// Redacted is what a set Secret prints instead of its value.
const Redacted = "[redacted]"

// Secret is a password or key. Every way of printing it (fmt with any verb,
// slog, encoding/json, encoding.TextMarshaler) shows [Redacted], or "" when
// it is empty; only Reveal gives the value. A plain string(s) conversion also
// gives it: do that only where the value is used, never to print it.
type Secret string

// Reveal returns the secret value, for handing it to a login.
func (s Secret) Reveal() string { return string(s) }

// IsSet reports whether the secret is non-empty.
func (s Secret) IsSet() bool { return s != "" }

// String returns [Redacted], or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString is String, so that %#v redacts too.
func (s Secret) GoString() string { return s.String() }

// Format implements fmt.Formatter: every verb prints String, %q quoted.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = io.WriteString(f, strconv.Quote(s.String()))
		return
	}
	_, _ = io.WriteString(f, s.String())
}

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON encodes String as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText encodes String.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
