package smtp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/emersion/go-sasl"

	"github.com/email-mcp/email-mcp/internal/netaddr"
	"github.com/email-mcp/email-mcp/internal/redact"
)

// authPolicy decides whether credentials may be sent to host: always over
// TLS; over plaintext only to a loopback host or when allowPlain is set.
// host is an IP literal or a name; only "localhost" counts among names (a
// name is not resolved here; "localhost." is not loopback).
func authPolicy(host string, encrypted, allowPlain bool) error {
	if encrypted || allowPlain || netaddr.IsLoopback(host) {
		return nil
	}
	return ErrInsecureAuth
}

// authenticate runs AUTH when credentials are configured, after the policy
// check: PLAIN, or LOGIN when the server offers only LOGIN.
func (ss *session) authenticate() error {
	o := ss.s.opts
	if o.Username == "" {
		return nil
	}
	if err := authPolicy(ss.remoteHost(), ss.tls != nil, o.AllowPlainAuth); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	ok, offered := ss.c.Extension("AUTH")
	if !ok {
		hint := ""
		if ss.tls == nil {
			hint = " (many servers offer it only over TLS)"
		}
		return fmt.Errorf("auth: %w: the server offers no AUTH%s", ErrAuthFailed, hint)
	}
	if o.Token != nil {
		return ss.tokenAuth(offered)
	}
	client, mech := pickMechanism(offered, o.Username, o.Password)
	if client == nil {
		return fmt.Errorf("auth: %w: the server offers %q; we speak PLAIN and LOGIN", ErrAuthFailed, sanitize(offered))
	}
	if err := ss.c.Auth(client); err != nil {
		return ss.authFailure("auth "+mech, err)
	}
	ss.trace.step("AUTH %s: ok", mech)
	ss.mech = mech
	return nil
}

// mechanisms lists the AUTH mechanisms of the EHLO answer, upper-cased.
func mechanisms(offered string) []string {
	return strings.Fields(strings.ToUpper(offered))
}

// pickMechanism chooses PLAIN, else LOGIN, among the offered mechanisms.
func pickMechanism(offered, user, pass string) (sasl.Client, string) {
	mechs := mechanisms(offered)
	switch {
	case slices.Contains(mechs, sasl.Plain):
		return sasl.NewPlainClient("", user, pass), sasl.Plain
	case slices.Contains(mechs, sasl.Login):
		return &loginClient{user: user, pass: pass}, sasl.Login
	}
	return nil, ""
}

// authFailure translates a failed AUTH: 535 and other 5xx are
// ErrAuthFailed, "TLS first" answers (523, 538) ErrTLS, 4xx ErrConnection
// (retry later).
func (ss *session) authFailure(op string, err error) error {
	// A server may echo the refused AUTH line: the password in base64.
	return redact.Error(ss.authError(op, err), redact.Password(ss.s.opts.Username, ss.s.opts.Password)...)
}

func (ss *session) authError(op string, err error) error {
	re, ok := asReply(err)
	switch {
	case !ok && (isTimeout(err) || ctxErr(ss.ctx) != nil || isNetErr(err)):
		return ioError(ss.ctx, op, err)
	case !ok: // the SASL client gave up, e.g. on an unexpected challenge
		return fmt.Errorf("%s: %w: %w", op, ErrAuthFailed, err)
	case re.Code == 523 || re.Code == 538:
		return fmt.Errorf("%s: %w: %w", op, ErrTLS, re)
	case re.Temporary():
		return fmt.Errorf("%s: %w: %w", op, ErrConnection, re)
	}
	return fmt.Errorf("%s: %w: %w", op, ErrAuthFailed, re)
}

// loginClient is the LOGIN mechanism, tolerant of the prompts servers send:
// no initial response; a prompt mentioning "user" gets the user name, one
// mentioning "pass" the password, and an unknown prompt the next in order.
// go-sasl's LOGIN client insists on the exact challenge "Password:".
type loginClient struct {
	user, pass string
	step       int
}

// Start implements sasl.Client.
func (a *loginClient) Start() (string, []byte, error) {
	return sasl.Login, nil, nil
}

// Next implements sasl.Client.
func (a *loginClient) Next(challenge []byte) ([]byte, error) {
	a.step++
	if a.step > 2 {
		return nil, errors.New("LOGIN: unexpected third challenge")
	}
	prompt := strings.ToLower(string(challenge))
	switch {
	case strings.Contains(prompt, "user"):
		return []byte(a.user), nil
	case strings.Contains(prompt, "pass"):
		return []byte(a.pass), nil
	case a.step == 1:
		return []byte(a.user), nil
	}
	return []byte(a.pass), nil
}
