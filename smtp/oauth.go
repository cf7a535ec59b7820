package smtp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/email-mcp/email-mcp/internal/redact"
	"github.com/email-mcp/email-mcp/internal/saslbearer"
)

// tokenAuth authenticates with an OAuth 2.0 access token (Options.Token);
// authenticate has checked the TLS rule. A refused token is reported to the
// source and, when the source then has another one, tried once more in the
// same session (SMTP allows a new AUTH after a 535).
func (ss *session) tokenAuth(offered string) error {
	o := ss.s.opts
	mech := saslbearer.Choose(mechanisms(offered), o.OAuthMechanism)
	if mech == "" {
		return fmt.Errorf("auth: %w: %w", ErrAuthFailed, noMechanism(sanitize(offered), o.OAuthMechanism))
	}
	tok, err := o.Token.Token(ss.ctx)
	if err != nil {
		return tokenError(err)
	}
	err = ss.authToken(mech, tok)
	if err != nil && errors.Is(err, ErrAuthFailed) {
		o.Token.Refused(tok)
		ss.s.log.Info("smtp: the server refused the OAuth token; trying the source's next one", "mechanism", mech)
		if next, terr := o.Token.Token(ss.ctx); terr == nil && next != tok {
			ss.trace.step("AUTH %s: token refused; trying a fresh one", mech)
			if err = ss.authToken(mech, next); err != nil && errors.Is(err, ErrAuthFailed) {
				o.Token.Refused(next)
			}
		}
	}
	if err != nil {
		return err
	}
	ss.trace.step("AUTH %s: ok", mech)
	ss.mech = mech
	return nil
}

// authToken runs one AUTH exchange with tok. Its error never holds the
// token, the SASL messages or the server's error challenge.
func (ss *session) authToken(mech, tok string) error {
	o := ss.s.opts
	sc := saslbearer.New(mech, o.Username, tok, o.Host, o.Port)
	err := ss.c.Auth(sc)
	if err == nil {
		return nil
	}
	err = ss.authError("auth "+mech, err)
	if errors.Is(err, ErrAuthFailed) {
		err = fmt.Errorf("%w (%s)", err, sc.Refusal().Hint())
	}
	return redact.Error(err, append(sc.Secrets(), redact.Token(tok)...)...)
}

// noMechanism says why no OAuth mechanism fits what the server offers.
func noMechanism(offered, want string) error {
	if want != "" {
		return fmt.Errorf("the server does not offer %s (it offers %q); change or unset OAUTH_MECHANISM",
			strings.ToUpper(want), offered)
	}
	return fmt.Errorf("the server offers neither OAUTHBEARER nor XOAUTH2 (it offers %q): it takes no OAuth token", offered)
}

// tokenError classifies a failure of the token source: temporary ones (the
// authorization server unreachable) are ErrConnection, a cancellation or
// timeout stays one, the rest (a revoked refresh token) ErrAuthFailed.
func tokenError(err error) error {
	var t interface{ Temporary() bool }
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("auth: oauth token: %w", err)
	case errors.As(err, &t) && t.Temporary():
		return fmt.Errorf("auth: oauth token: %w: %w", ErrConnection, err)
	}
	return fmt.Errorf("auth: oauth token: %w: %w", ErrAuthFailed, err)
}
