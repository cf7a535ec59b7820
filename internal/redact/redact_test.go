package redact_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/internal/redact"
)

var errKind = errors.New("kind")

func TestError(t *testing.T) {
	const user, pass = "agent@example.com", `pa"ss\word`
	plain := base64.StdEncoding.EncodeToString([]byte("\x00" + user + "\x00" + pass))
	login := base64.StdEncoding.EncodeToString([]byte(pass))
	for _, server := range []string{
		`NO [AUTHENTICATIONFAILED] failed: LOGIN "agent@example.com" "pa\"ss\\word"`,
		"535 5.7.8 failed: AUTH PLAIN " + plain,
		"535 5.7.8 failed: " + login,
		"echo " + pass,
	} {
		err := redact.Error(fmt.Errorf("login: %w: %s", errKind, server), redact.Password(user, pass)...)
		if !errors.Is(err, errKind) {
			t.Errorf("Error(%q) lost the chain: %v", server, err)
		}
		if s := err.Error(); strings.Contains(s, `ss\\word`) || strings.Contains(s, `ss\word`) || strings.Contains(s, plain) || strings.Contains(s, login) {
			t.Errorf("Error(%q) = %q, still holds the password", server, s)
		}
	}
	plainErr := errors.New("no secret here")
	if got := redact.Error(plainErr, redact.Password(user, pass)...); got != plainErr {
		t.Errorf("Error without a secret = %v, want the error itself", got)
	}
	if redact.Error(nil, "x") != nil || len(redact.Password(user, "")) != 0 {
		t.Error("nil error or empty password not left alone")
	}
}

// TestToken: an access token is removed as is and in base64.
func TestToken(t *testing.T) {
	const tok = "ya29.a0AfH6SMB-token"
	text := "NO token " + tok + " or " + base64.StdEncoding.EncodeToString([]byte(tok)) + " refused"
	got := redact.Text(text, redact.Token(tok)...)
	if strings.Contains(got, tok) || strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(tok))) {
		t.Errorf("Text(%q, Token) = %q, want both forms removed", text, got)
	}
	if redact.Token("") != nil {
		t.Errorf("Token(\"\") = %v, want nil", redact.Token(""))
	}
}
