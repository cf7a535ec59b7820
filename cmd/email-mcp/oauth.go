package main

import (
	"context"
	"errors"
	"strings"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/oauth"
)

// tokenSource is the OAuth token source of the configuration: the one
// variable of OAUTH_TOKEN_COMMAND, OAUTH_ACCESS_TOKEN_FILE and
// OAUTH_REFRESH_TOKEN that is set, else the refresh token that
// `email-mcp login` stored. A stored token that cannot be used is a
// configuration error (exit 2) that says what to do.
func tokenSource(cfg *config.Config) (oauthSource, error) {
	switch {
	case cfg.OAuthTokenCommand != "":
		return &oauth.Command{Argv: strings.Fields(cfg.OAuthTokenCommand)}, nil
	case cfg.OAuthAccessTokenFile != "":
		return &oauth.File{Path: cfg.OAuthAccessTokenFile}, nil
	case cfg.OAuthRefreshToken.IsSet():
		return oauth.NewRefresh(oauth.RefreshOptions{ClientID: cfg.OAuthClientID, ClientSecret: cfg.OAuthClientSecret.Reveal(),
			TokenURL: cfg.OAuthTokenURL, Scopes: cfg.OAuthScopes, RefreshToken: cfg.OAuthRefreshToken.Reveal()}), nil
	}
	path := cfg.TokenStorePath()
	st, err := oauth.Load(path)
	if err != nil {
		return nil, varError(err)
	}
	clientID, tokenURL := st.ClientID, st.TokenURL
	if cfg.OAuthClientID != "" && cfg.Source("OAUTH_CLIENT_ID") != config.SourcePreset {
		clientID = cfg.OAuthClientID
	}
	return oauth.NewRefresh(oauth.RefreshOptions{ClientID: clientID, ClientSecret: cfg.OAuthClientSecret.Reveal(),
		TokenURL: tokenURL, RefreshToken: st.RefreshToken,
		OnRotate: func(rt string) {
			st.RefreshToken = rt
			_ = oauth.Save(path, st) // a failure keeps the new token in memory; the old may still work
		}}), nil
}

// oauthSource is what imap and smtp take as their TokenSource.
type oauthSource interface {
	Token(ctx context.Context) (string, error)
	Refused(token string)
}

// varError makes an oauth.ConfigError a config.VarError (exit 2).
func varError(err error) error {
	var ce *oauth.ConfigError
	if errors.As(err, &ce) {
		reason := ce.Reason
		if ce.Hint != "" {
			reason += "; " + ce.Hint
		}
		return &config.VarError{Name: ce.Var, Reason: reason}
	}
	return err
}
