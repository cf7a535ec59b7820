package imap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/internal/redact"
	"github.com/email-mcp/email-mcp/internal/saslbearer"
)

// loginToken signs in with AUTHENTICATE and an OAuth 2.0 access token
// (Options.Token), after the same TLS rule as a password. A refused token
// is reported to the source and, when the source then has another one (it
// had cached a token the server no longer takes), tried once more on the
// same connection: an early expiry costs no failed call.
func (c *Client) loginToken(ctx context.Context, cn *conn, d *Diagnosis) error {
	if err := c.credentialsAllowed(cn); err != nil {
		d.stepf("login: not attempted: %v", err)
		return err
	}
	offered := cn.caps.AuthMechanisms()
	mech := saslbearer.Choose(offered, c.opts.OAuthMechanism)
	if mech == "" {
		err := wrapKind("login", ErrAuthFailed, noMechanism(offered, c.opts.OAuthMechanism))
		d.stepf("login: not attempted: %v", err)
		return err
	}
	if d != nil {
		d.Mechanism = mech
	}
	tok, err := c.opts.Token.Token(ctx)
	if err != nil {
		err = tokenError(err)
		d.stepf("OAuth token for %q: failed: %v", c.opts.Username, err)
		return err
	}
	err = c.authenticate(ctx, cn, mech, tok)
	if err != nil && c.retryable(cn, err) {
		c.opts.Token.Refused(tok)
		c.opts.Logger.Info("imap: the server refused the OAuth token; trying the source's next one", "mechanism", mech)
		if next, terr := c.opts.Token.Token(ctx); terr == nil && next != tok {
			d.stepf("login as %q with %s: token refused; trying a fresh one", c.opts.Username, mech)
			if err = c.authenticate(ctx, cn, mech, next); err != nil && errors.Is(err, ErrAuthFailed) {
				c.opts.Token.Refused(next)
			}
		}
	}
	if err != nil {
		d.stepf("login as %q with %s: failed: %v", c.opts.Username, mech, err)
		return err
	}
	c.loggedIn(cn, d, "AUTHENTICATE "+mech)
	return nil
}

// retryable reports whether a failed AUTHENTICATE may be tried again on cn:
// the server refused the token and the connection is intact.
func (c *Client) retryable(cn *conn, err error) bool {
	return errors.Is(err, ErrAuthFailed) && !cn.spoiled && !cn.dead()
}

// authenticate runs one AUTHENTICATE exchange with tok. Its error never
// holds the token, the SASL messages or the server's error challenge.
func (c *Client) authenticate(ctx context.Context, cn *conn, mech, tok string) error {
	sc := saslbearer.New(mech, c.opts.Username, tok, c.opts.Host, c.opts.Port)
	sc.ErrorAnswer = []byte{0x01} // imapclient sends "=" for an empty answer
	err := cn.run(ctx, c.opts.CommandTimeout, func(ic *imapclient.Client) error {
		if err := ic.Authenticate(sc); err != nil {
			return err
		}
		return loadCaps(cn)
	})
	if err == nil {
		return nil
	}
	if !hasKind(err) {
		kind := loginKind(err)
		if errors.Is(kind, ErrAuthFailed) {
			err = fmt.Errorf("%s (%s): %w", mech, sc.Refusal().Hint(), err)
		}
		err = wrapKind("login", kind, err)
	} else {
		err = fmt.Errorf("login: %w", err)
	}
	return redact.Error(err, append(sc.Secrets(), redact.Token(tok)...)...)
}

// loggedIn records a successful login in d.
func (c *Client) loggedIn(cn *conn, d *Diagnosis, how string) {
	if d == nil {
		return
	}
	d.LoginOK = true
	d.CapsAfterLogin = capList(cn.caps)
	d.stepf("login as %q with %s: ok; capabilities: %s", c.opts.Username, how, strings.Join(capList(cn.caps), " "))
}

// noMechanism says why no OAuth mechanism fits what the server offers.
func noMechanism(offered []string, want string) error {
	if want != "" {
		return fmt.Errorf("the server does not offer %s (it offers %s); change or unset OAUTH_MECHANISM",
			strings.ToUpper(want), strings.Join(offered, " "))
	}
	return fmt.Errorf("the server offers neither OAUTHBEARER nor XOAUTH2 (it offers %q): it takes no OAuth token",
		strings.Join(offered, " "))
}

// tokenError classifies a failure of the token source: one that says it is
// temporary (the authorization server unreachable) is ErrConnection, a
// cancellation or timeout stays one, anything else (a revoked refresh
// token, a missing token file) is ErrAuthFailed; its text is the source's,
// which names no secret.
func tokenError(err error) error {
	var t interface{ Temporary() bool }
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("oauth token: %w", err)
	case errors.As(err, &t) && t.Temporary():
		return wrapKind("oauth token", ErrConnection, err)
	}
	return wrapKind("oauth token", ErrAuthFailed, err)
}
