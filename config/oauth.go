package config

import (
	"net/url"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/email-mcp/email-mcp/internal/netaddr"
)

// AuthMode is EMAIL_AUTH: how email-mcp signs in to IMAP and SMTP.
type AuthMode string

// The sign-in modes.
const (
	AuthPassword AuthMode = "password" // IMAP_PASSWORD / SMTP_PASSWORD
	AuthOAuth2   AuthMode = "oauth2"   // an OAuth 2.0 access token (XOAUTH2 / OAUTHBEARER)
)

// Decode implements envconfig.Decoder.
func (m *AuthMode) Decode(s string) error {
	switch v := AuthMode(lower(s)); v {
	case AuthPassword, AuthOAuth2:
		*m = v
		return nil
	case "oauth", "xoauth2":
		*m = AuthOAuth2
		return nil
	}
	return reasonError("must be one of password, oauth2")
}

// Mechanism is OAUTH_MECHANISM.
type Mechanism string

// The SASL mechanisms for a token.
const (
	MechanismAuto        Mechanism = "auto"
	MechanismXOAuth2     Mechanism = "xoauth2"
	MechanismOAuthBearer Mechanism = "oauthbearer"
)

// Decode implements envconfig.Decoder.
func (m *Mechanism) Decode(s string) error {
	switch v := Mechanism(lower(s)); v {
	case MechanismAuto, MechanismXOAuth2, MechanismOAuthBearer:
		*m = v
		return nil
	}
	return reasonError("must be one of auto, xoauth2, oauthbearer")
}

// SASL is the mechanism name for the adapters: "" for auto.
func (m Mechanism) SASL() string {
	if m == MechanismAuto || m == "" {
		return ""
	}
	return strings.ToUpper(string(m))
}

// DefaultTokenStore is the file name of the stored token under
// EMAIL_DATA_DIR.
const DefaultTokenStore = "oauth-token.json"

// OAuth reports whether email-mcp signs in with OAuth 2.0 tokens.
func (c *Config) OAuth() bool { return c.EmailAuth == AuthOAuth2 }

// TokenStorePath is where email-mcp login stores the refresh token and
// where it is read from: OAUTH_TOKEN_STORE, else EMAIL_DATA_DIR's
// oauth-token.json (oauth-token-NAME.json for an account of
// EMAIL_ACCOUNTS), else "".
func (c *Config) TokenStorePath() string {
	if c.OAuthTokenStore != "" {
		return c.OAuthTokenStore
	}
	if c.EmailDataDir == "" {
		return ""
	}
	if c.accountName != "" {
		return filepath.Join(c.EmailDataDir, "oauth-token-"+c.accountName+".json")
	}
	return filepath.Join(c.EmailDataDir, DefaultTokenStore)
}

// oauthSources are the variables that each name a token source; at most
// one may be set.
var oauthSources = []string{"OAUTH_REFRESH_TOKEN", "OAUTH_TOKEN_COMMAND", "OAUTH_ACCESS_TOKEN_FILE"}

// resolveAuth derives EMAIL_AUTH and splits OAUTH_SCOPES on blanks too.
func (ld *loader) resolveAuth(c *Config) {
	var scopes []string
	for _, s := range c.OAuthScopes {
		scopes = append(scopes, strings.Fields(s)...)
	}
	c.OAuthScopes = scopes
	if ld.userSet("EMAIL_AUTH") {
		return
	}
	c.EmailAuth = AuthPassword
	for _, name := range oauthSources {
		if ld.userSet(name) {
			c.EmailAuth = AuthOAuth2
		}
	}
	if p := presets[c.EmailProvider]; p.oauthOnly && !ld.userSet("IMAP_PASSWORD") {
		c.EmailAuth = AuthOAuth2
	}
	ld.sources["EMAIL_AUTH"] = SourceDerived
}

// validateOAuth checks the OAuth variables when EMAIL_AUTH=oauth2.
func (ld *loader) validateOAuth(c *Config) {
	ld.endpoint("OAUTH_TOKEN_URL", c.OAuthTokenURL)
	ld.endpoint("OAUTH_DEVICE_AUTH_URL", c.OAuthDeviceAuthURL)
	ld.endpoint("OAUTH_AUTH_URL", c.OAuthAuthURL)
	if !c.OAuth() || c.Sandbox() {
		return
	}
	var set []string
	for _, name := range oauthSources {
		if ld.userSet(name) {
			set = append(set, name)
		}
	}
	if len(set) > 1 {
		for _, name := range set[1:] {
			ld.fail(name, "", "set only one token source; "+set[0]+" is set too")
		}
	}
	needsClient := len(set) == 0 || set[0] == "OAUTH_REFRESH_TOKEN"
	if len(set) == 0 && c.TokenStorePath() == "" {
		ld.fail("OAUTH_REFRESH_TOKEN", "", "EMAIL_AUTH=oauth2 needs a token: run `email-mcp login` (it stores one under EMAIL_DATA_DIR "+
			"or OAUTH_TOKEN_STORE), or set OAUTH_REFRESH_TOKEN, OAUTH_TOKEN_COMMAND or OAUTH_ACCESS_TOKEN_FILE")
	}
	if needsClient && len(set) == 1 {
		if c.OAuthClientID == "" {
			ld.fail("OAUTH_CLIENT_ID", "", "required with OAUTH_REFRESH_TOKEN (the id of the app the token was issued to)")
		}
		if c.OAuthTokenURL == "" {
			ld.fail("OAUTH_TOKEN_URL", "", "required with OAUTH_REFRESH_TOKEN (or set EMAIL_PROVIDER)")
		}
	}
}

// endpoint checks an OAuth endpoint: an absolute https URL, or http to a
// loopback host (a test authorization server); no credentials in it.
func (ld *loader) endpoint(name, raw string) {
	if raw == "" || !ld.ok(name) {
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		ld.fail(name, raw, "must be an absolute https URL")
	case u.User != nil:
		ld.fail(name, "", "must not contain a user name or password")
	case u.Scheme == "http" && netaddr.IsLoopback(u.Hostname()):
	case u.Scheme != "https":
		ld.fail(name, raw, "must be an https URL (http only to a loopback host)")
	}
}

// applyPreset fills the variables the user left unset from EMAIL_PROVIDER's
// preset, marking them SourcePreset.
func (ld *loader) applyPreset(c *Config) {
	p, ok := presets[c.EmailProvider]
	if !ok {
		return
	}
	v := reflect.ValueOf(c).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := f.Tag.Get("envconfig")
		raw, ok := p.values[name]
		if !ok || ld.userSet(name) {
			continue
		}
		if err := decodeField(v.FieldByIndex(f.Index), f, raw); err != nil {
			panic("config: preset " + string(c.EmailProvider) + " " + name + ": " + err.Error())
		}
		ld.sources[name] = SourcePreset
	}
}
