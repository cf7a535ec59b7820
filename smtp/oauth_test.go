package smtp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"

	"github.com/email-mcp/email-mcp/smtp"
)

// tokenList hands out tokens in order; Refused drops the first when it is
// the refused one.
type tokenList struct {
	mu      sync.Mutex
	tokens  []string
	err     error
	refused []string
}

func (l *tokenList) Token(context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return "", l.err
	}
	return l.tokens[0], nil
}

func (l *tokenList) Refused(tok string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused = append(l.refused, tok)
	if len(l.tokens) > 1 && l.tokens[0] == tok {
		l.tokens = l.tokens[1:]
	}
}

// acceptOnly accepts testUser with one token and refuses others with status.
func acceptOnly(good, status, scope string) func(user, token string) *sasl.OAuthBearerError {
	return func(user, token string) *sasl.OAuthBearerError {
		if user == testUser && token == good {
			return nil
		}
		return &sasl.OAuthBearerError{Status: status, Schemes: "bearer", Scope: scope}
	}
}

func tokenSender(port int, src smtp.TokenSource, mech string, logs io.Writer) *smtp.Sender {
	if logs == nil {
		logs = io.Discard
	}
	return smtp.New(smtp.Options{Host: "127.0.0.1", Port: port, Username: testUser, Token: src, OAuthMechanism: mech,
		Security: smtp.SecurityPlain, CommandTimeout: 10 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
}

// TestOAuthAuthMechanisms: AUTH uses the mechanism the EHLO answer offers
// (OAUTHBEARER first) or the one asked for, and the mail goes out.
func TestOAuthAuthMechanisms(t *testing.T) {
	for _, tc := range []struct {
		offered   []string
		mech, use string
	}{
		{[]string{"PLAIN", "XOAUTH2"}, "", "XOAUTH2"},
		{[]string{"OAUTHBEARER"}, "", "OAUTHBEARER"},
		{[]string{"XOAUTH2", "OAUTHBEARER"}, "", "OAUTHBEARER"},
		{[]string{"XOAUTH2", "OAUTHBEARER"}, "XOAUTH2", "XOAUTH2"},
	} {
		be := &backend{mechs: tc.offered, requireAuth: true, bearer: acceptOnly("good", "401", "")}
		port := newTestServer(t, plainServer, be)
		s := tokenSender(port, &tokenList{tokens: []string{"good"}}, tc.mech, nil)
		d := s.Diagnose(t.Context())
		if d.Err != nil || d.Mechanism != tc.use {
			t.Errorf("offered %q: Diagnose() = %v, mechanism %q, want nil, %s", tc.offered, d.Err, d.Mechanism, tc.use)
		}
		if _, err := s.Send(t.Context(), testMessage().Envelope(), testMessage()); err != nil {
			t.Errorf("offered %q: Send() = %v", tc.offered, err)
		}
	}
}

// TestOAuthAuthRefused: a refused token is ErrAuthFailed with the hint of
// the error challenge, and no form of the token reaches the error, the
// steps or the log, though the server echoes it in its 535.
func TestOAuthAuthRefused(t *testing.T) {
	for _, tc := range []struct {
		mech, status, scope, want string
	}{
		{"XOAUTH2", "401", "https://mail.google.com/", "expired or revoked"},
		{"OAUTHBEARER", "insufficient_scope", "SMTP.Send", "lacks the scope"},
		{"XOAUTH2", "400", "", "must be the account"},
	} {
		const bad = "EwBwA8l6BAAU-refused-access-token-987654321"
		be := &backend{mechs: []string{tc.mech}, bearer: acceptOnly("good", tc.status, tc.scope)}
		port := newTestServer(t, plainServer, be)
		var logs bytes.Buffer
		d := tokenSender(port, &tokenList{tokens: []string{bad}}, "", &logs).Diagnose(t.Context())
		if !errors.Is(d.Err, smtp.ErrAuthFailed) || !strings.Contains(d.Err.Error(), tc.want) {
			t.Errorf("%s %s: Diagnose().Err = %v, want ErrAuthFailed with %q", tc.mech, tc.status, d.Err, tc.want)
			continue
		}
		text := d.Err.Error() + strings.Join(d.Steps, "\n") + logs.String()
		enc := base64.StdEncoding.EncodeToString
		for _, s := range []string{bad, enc([]byte(bad)), bad[8:24], enc([]byte("user=" + testUser + "\x01auth=Bearer " + bad + "\x01\x01"))} {
			if strings.Contains(text, s) {
				t.Errorf("%s %s: a form of the token (%q) is in the error, steps or log:\n%s", tc.mech, tc.status, s, text)
			}
		}
	}
}

// TestOAuthAuthStaleToken: a refused cached token is reported and the
// source's next one authenticates in the same session: Send succeeds.
func TestOAuthAuthStaleToken(t *testing.T) {
	be := &backend{mechs: []string{"XOAUTH2"}, requireAuth: true, bearer: acceptOnly("fresh", "401", "")}
	port := newTestServer(t, plainServer, be)
	src := &tokenList{tokens: []string{"stale", "fresh"}}
	s := tokenSender(port, src, "", nil)
	if _, err := s.Send(t.Context(), testMessage().Envelope(), testMessage()); err != nil {
		t.Fatalf("Send() = %v, want the fresh token to authenticate", err)
	}
	be.mu.Lock()
	tokens := slices.Clone(be.tokens)
	be.mu.Unlock()
	if !slices.Equal(tokens, []string{"stale", "fresh"}) || !slices.Equal(src.refused, []string{"stale"}) {
		t.Errorf("server saw %q, source told of %q; want [stale fresh], [stale]", tokens, src.refused)
	}
}

// TestOAuthTokenSourceFailure: a token source that cannot give a token
// fails AUTH before it starts: a temporary failure is ErrConnection, any
// other ErrAuthFailed, with the source's text.
func TestOAuthTokenSourceFailure(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want error
	}{
		{tempErr{errors.New("token endpoint unreachable")}, smtp.ErrConnection},
		{errors.New("refresh token revoked: run email-mcp login"), smtp.ErrAuthFailed},
	} {
		be := &backend{mechs: []string{"XOAUTH2"}, bearer: acceptOnly("good", "401", "")}
		port := newTestServer(t, plainServer, be)
		d := tokenSender(port, &tokenList{err: tc.err}, "", nil).Diagnose(t.Context())
		if !errors.Is(d.Err, tc.want) || !strings.Contains(d.Err.Error(), tc.err.Error()) {
			t.Errorf("source error %q: Diagnose().Err = %v, want %v with its text", tc.err, d.Err, tc.want)
		}
	}
}

type tempErr struct{ error }

func (tempErr) Temporary() bool { return true }
