package oauth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// DeviceOptions configure DeviceLogin.
type DeviceOptions struct {
	ClientID      string
	ClientSecret  string
	DeviceAuthURL string
	TokenURL      string
	Scopes        []string
	Issuer        string       // kept in Stored, for people
	HTTPClient    *http.Client // nil: one with DefaultHTTPTimeout
}

// DevicePrompt is what the user must do: open URL and enter Code (or open
// Complete, which holds the code, when the server gives one).
type DevicePrompt struct {
	URL, Code, Complete string
	Expires             time.Time
}

// DeviceLogin runs the OAuth 2.0 device authorization grant (RFC 8628):
// it asks for a code, hands it to show, and polls the token endpoint at
// the interval the server asks for until the user has approved, refused,
// or the code expired (or ctx ends). The result holds the refresh token,
// ready for Save.
func DeviceLogin(ctx context.Context, o DeviceOptions, show func(DevicePrompt)) (Stored, error) {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	conf := &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes,
		Endpoint: oauth2.Endpoint{DeviceAuthURL: o.DeviceAuthURL, TokenURL: o.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	da, err := conf.DeviceAuth(ctx)
	if err != nil {
		return Stored{}, deviceError("ask for a device code", err)
	}
	show(DevicePrompt{URL: da.VerificationURI, Code: da.UserCode, Complete: da.VerificationURIComplete, Expires: da.Expiry})
	tok, err := conf.DeviceAccessToken(ctx, da)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Stored{}, ctx.Err()
		}
		return Stored{}, deviceError("wait for the approval", err)
	}
	if tok.RefreshToken == "" {
		return Stored{}, &ConfigError{Var: "OAUTH_SCOPES", Reason: "the authorization server issued no refresh token",
			Hint: "add offline_access to OAUTH_SCOPES (Microsoft), or allow refresh tokens for this client"}
	}
	return Stored{Issuer: o.Issuer, TokenURL: o.TokenURL, ClientID: o.ClientID, Scopes: o.Scopes,
		RefreshToken: tok.RefreshToken, SavedAt: time.Now().UTC()}, nil
}

// deviceCodes are the device grant's own refusals (RFC 8628 section 3.5).
var deviceCodes = map[string]string{
	"access_denied": "the sign-in was refused in the browser",
	"expired_token": "the code expired before the sign-in was approved; run `email-mcp login` again",
	"invalid_scope": "the authorization server refuses these scopes (OAUTH_SCOPES) for the device grant " +
		"(Google's device flow may not allow the mail scope: see README for the ways around it)",
}

// deviceError words a failure of the device grant.
func deviceError(op string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if reason, ok := deviceCodes[re.ErrorCode]; ok {
			return &ConfigError{Var: "email-mcp login", Reason: reason}
		}
		if re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client" {
			return &ConfigError{Var: "OAUTH_CLIENT_ID", Reason: "the authorization server refuses this client for the device grant (" + re.ErrorCode + ")",
				Hint: "register the app as a public client that may use the device flow (see README)"}
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &ConfigError{Var: "email-mcp login", Reason: "the code expired before the sign-in was approved; run it again"}
	}
	return classify(op, err)
}
