// Package saslbearer is the client side of the two SASL mechanisms that
// carry an OAuth 2.0 access token: OAUTHBEARER (RFC 7628) and Google's and
// Microsoft's XOAUTH2. Both imap and smtp use it.
//
// A refused token is answered by an error challenge, a JSON object
// ({"status":"401","schemes":"bearer","scope":"..."}); the Client keeps it
// (to explain the refusal with Hint) and answers as the RFC asks, so that
// the server ends the exchange with its failure reply: it never leaves the
// exchange half done. Secrets lists every form of the token that went on
// the wire, and the challenge, for internal/redact.
package saslbearer

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/emersion/go-sasl"
)

// The mechanism names, as servers advertise them.
const (
	XOAuth2     = "XOAUTH2"
	OAuthBearer = "OAUTHBEARER"
)

// Choose picks the mechanism among offered (case-insensitive): want when
// it is XOAUTH2 or OAUTHBEARER and offered, else with want empty
// OAUTHBEARER (the standard) before XOAUTH2. "" when none fits.
func Choose(offered []string, want string) string {
	up := make([]string, len(offered))
	for i, m := range offered {
		up[i] = strings.ToUpper(strings.TrimSpace(m))
	}
	want = strings.ToUpper(want)
	if want != "" && want != "AUTO" {
		if slices.Contains(up, want) {
			return want
		}
		return ""
	}
	for _, m := range []string{OAuthBearer, XOAuth2} {
		if slices.Contains(up, m) {
			return m
		}
	}
	return ""
}

// Client is one SASL exchange with a bearer token. It implements
// sasl.Client; use it once.
type Client struct {
	// ErrorAnswer, when not nil, is the answer to XOAUTH2's error challenge
	// instead of the empty one: imapclient cannot send an empty line (it
	// sends "=", which Dovecot refuses as bad base64), so imap answers
	// %x01 as OAUTHBEARER does; any answer ends the exchange with a NO.
	ErrorAnswer []byte

	mech, user, token, host string
	port                    int
	initial                 []byte
	challenge               []byte
}

// New returns a client of mech (XOAuth2 or OAuthBearer) for user with the
// access token. host and port go into OAUTHBEARER's message (RFC 7628
// section 3.1 asks for them; they may be empty).
func New(mech, user, token, host string, port int) *Client {
	return &Client{mech: strings.ToUpper(mech), user: user, token: token, host: host, port: port}
}

// Start implements sasl.Client: the initial response carries the token.
func (c *Client) Start() (string, []byte, error) {
	if c.mech == OAuthBearer {
		_, ir, err := sasl.NewOAuthBearerClient(&sasl.OAuthBearerOptions{
			Username: c.user, Token: c.token, Host: c.host, Port: c.port}).Start()
		c.initial = ir
		return OAuthBearer, ir, err
	}
	c.initial = []byte("user=" + c.user + "\x01auth=Bearer " + c.token + "\x01\x01")
	return XOAuth2, c.initial, nil
}

// Next implements sasl.Client. The only challenge after the initial
// response is the error one: it is kept, and answered with what ends the
// exchange (%x01 for OAUTHBEARER, RFC 7628 section 3.2.3; an empty response
// for XOAUTH2), so the server sends its failure reply next.
func (c *Client) Next(challenge []byte) ([]byte, error) {
	c.challenge = slices.Clone(challenge)
	if c.mech == OAuthBearer {
		return []byte{0x01}, nil
	}
	if c.ErrorAnswer != nil {
		return c.ErrorAnswer, nil
	}
	return []byte{}, nil
}

// Mechanism is the mechanism's name.
func (c *Client) Mechanism() string { return c.mech }

// Secrets lists what must never reach a log or an error: the token, the
// initial response raw and in base64, and the error challenge raw and in
// base64 (servers may echo any of them).
func (c *Client) Secrets() []string {
	enc := base64.StdEncoding.EncodeToString
	s := []string{c.token}
	if c.initial != nil {
		s = append(s, enc(c.initial), string(c.initial))
	}
	if len(c.challenge) > 0 {
		s = append(s, enc(c.challenge), string(c.challenge))
	}
	return s
}

// Refusal is the server's error challenge, decoded.
type Refusal struct {
	Status  string `json:"status"`
	Schemes string `json:"schemes"`
	Scope   string `json:"scope"`
}

// Refusal returns the parsed error challenge, or nil when the server sent
// none (or one that is not JSON).
func (c *Client) Refusal() *Refusal {
	if len(c.challenge) == 0 {
		return nil
	}
	var r Refusal
	if json.Unmarshal(c.challenge, &r) != nil {
		return nil
	}
	return &r
}

// Hint explains a refused token in words for a person, from the error
// challenge r (nil: the server said nothing more). It never quotes the
// token.
func (r *Refusal) Hint() string {
	const generic = "the server refused the OAuth token: it expired or was revoked, lacks the mail scope, " +
		"or was issued for another account than the user name"
	if r == nil {
		return generic
	}
	scope := ""
	if r.Scope != "" {
		scope = " (the server asks for scope " + strconv.Quote(clip(r.Scope)) + ")"
	}
	switch strings.ToLower(r.Status) {
	case "401", "invalid_token":
		return "the server refused the OAuth access token as expired or revoked (status " + strconv.Quote(clip(r.Status)) + ")"
	case "403", "insufficient_scope":
		return "the OAuth token lacks the scope the server needs" + scope + ": set OAUTH_SCOPES and run `email-mcp login` again"
	case "400", "invalid_request":
		return "the server could not use the OAuth token for this user: the user name (IMAP_USER/SMTP_USER) " +
			"must be the account the token was issued for"
	}
	return generic + scope
}

// clip bounds a server-given string that goes into a hint.
func clip(s string) string {
	const most = 200
	if len(s) > most {
		return s[:most] + "..."
	}
	return s
}
