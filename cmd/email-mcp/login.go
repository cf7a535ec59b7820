package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/oauth"
)

// loginTimeout bounds the whole sign-in (device codes live 15 minutes at
// Google and Microsoft).
const loginTimeout = 15 * time.Minute

// loginFlags are the flags of `email-mcp login`.
type loginFlags struct {
	out     string // where to store; default cfg.TokenStorePath()
	issuer  string // an issuer URL whose metadata names the endpoints
	browser bool   // the authorization code grant with a loopback redirect
	account string // an account of EMAIL_ACCOUNTS; "" the default one
}

// addLoginFlags registers login's flags on fs.
func addLoginFlags(fs *flag.FlagSet, lf *loginFlags) {
	fs.StringVar(&lf.out, "out", "", "file to store the refresh token in (default: OAUTH_TOKEN_STORE, or EMAIL_DATA_DIR/oauth-token.json)")
	fs.BoolVar(&lf.browser, "browser", false, "sign in in a browser on this machine (authorization code + PKCE, loopback redirect) instead of the device grant")
	fs.StringVar(&lf.account, "account", "", "sign in the account of this name (EMAIL_ACCOUNTS; its prefixed OAUTH_ variables); default: the default account")
	fs.StringVar(&lf.issuer, "issuer", "", "OAuth issuer URL; its metadata gives the endpoints (default: OAUTH_DEVICE_AUTH_URL and OAUTH_TOKEN_URL)")
}

// runLogin is `email-mcp login`: the OAuth 2.0 device authorization grant
// (RFC 8628). It prints the URL and the code to enter there, waits for the
// approval and stores the refresh token with mode 0600. The token itself
// is never printed.
func runLogin(ctx context.Context, cfg *config.Config, lf loginFlags, stdout, stderr io.Writer) int {
	if lf.account != "" {
		acct, ok := cfg.Account(lf.account)
		if !ok {
			fmt.Fprintf(stderr, "email-mcp login: no account %q (EMAIL_ACCOUNTS names the accounts)\n", lf.account)
			return exitConfig
		}
		cfg = acct.Config
	}
	path := lf.out
	if path == "" {
		path = cfg.TokenStorePath()
	}
	if bad := loginProblems(cfg, lf, path); len(bad) > 0 {
		fmt.Fprintln(stderr, "email-mcp login: the configuration is not valid:")
		for _, b := range bad {
			fmt.Fprintf(stderr, "  %s\n", b)
		}
		return exitConfig
	}
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	ep := oauth.Endpoints{TokenURL: cfg.OAuthTokenURL, DeviceAuthURL: cfg.OAuthDeviceAuthURL, AuthURL: cfg.OAuthAuthURL}
	issuer := string(cfg.EmailProvider)
	if lf.issuer != "" {
		var err error
		if ep, err = oauth.Discover(ctx, nil, lf.issuer); err != nil {
			fmt.Fprintf(stderr, "email-mcp login: %v\n", err)
			return exitConfig
		}
		issuer = lf.issuer
	}
	st, err := obtainToken(ctx, cfg, lf, ep, issuer, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "email-mcp login: %v\n", err)
		return exitFailure
	}
	if err := oauth.Save(path, st); err != nil {
		fmt.Fprintf(stderr, "email-mcp login: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "Signed in. The refresh token is stored in %s (mode 0600).\n", path)
	fmt.Fprintln(stdout, "Set EMAIL_AUTH=oauth2 (the Microsoft presets do) and run `email-mcp check`.")
	return exitOK
}

// obtainToken runs the device grant, or with --browser the authorization code
// grant, and returns what to store.
func obtainToken(ctx context.Context, cfg *config.Config, lf loginFlags, ep oauth.Endpoints, issuer string, stdout io.Writer) (oauth.Stored, error) {
	if lf.browser {
		if ep.AuthURL == "" {
			return oauth.Stored{}, &oauth.ConfigError{Var: "OAUTH_AUTH_URL", Reason: "required with --browser (set EMAIL_PROVIDER, or pass --issuer URL)"}
		}
		return oauth.BrowserLogin(ctx, oauth.BrowserOptions{ClientID: cfg.OAuthClientID, ClientSecret: cfg.OAuthClientSecret.Reveal(),
			AuthURL: ep.AuthURL, TokenURL: ep.TokenURL, Scopes: cfg.OAuthScopes, Issuer: issuer},
			func(u string) {
				fmt.Fprintf(stdout, "To sign in, open this URL in a browser on this machine:\n\n  %s\n\nWaiting for the sign-in...\n", u)
			})
	}
	if ep.DeviceAuthURL == "" {
		return oauth.Stored{}, &oauth.ConfigError{Var: "OAUTH_DEVICE_AUTH_URL", Reason: "required (set EMAIL_PROVIDER, pass --issuer URL, or use --browser)"}
	}
	return oauth.DeviceLogin(ctx, oauth.DeviceOptions{ClientID: cfg.OAuthClientID, ClientSecret: cfg.OAuthClientSecret.Reveal(),
		DeviceAuthURL: ep.DeviceAuthURL, TokenURL: ep.TokenURL, Scopes: cfg.OAuthScopes, Issuer: issuer},
		func(p oauth.DevicePrompt) { printPrompt(stdout, p) })
}

// loginProblems lists what login needs and lacks, one line each.
func loginProblems(cfg *config.Config, lf loginFlags, path string) []string {
	var bad []string
	if path == "" {
		bad = append(bad, "OAUTH_TOKEN_STORE: no place to store the token: set EMAIL_DATA_DIR or OAUTH_TOKEN_STORE, or pass --out PATH")
	}
	if cfg.OAuthClientID == "" {
		bad = append(bad, "OAUTH_CLIENT_ID: required: the client (application) id of your app registration (see README)")
	}
	if lf.issuer == "" && cfg.OAuthTokenURL == "" {
		bad = append(bad, "OAUTH_TOKEN_URL: required (set EMAIL_PROVIDER, or pass --issuer URL)")
	}
	return bad
}

// printPrompt tells the user what to do in the browser.
func printPrompt(w io.Writer, p oauth.DevicePrompt) {
	fmt.Fprintf(w, "To sign in, open %s and enter the code %s\n", p.URL, p.Code)
	if p.Complete != "" {
		fmt.Fprintf(w, "(or open %s, which holds the code)\n", p.Complete)
	}
	if !p.Expires.IsZero() {
		fmt.Fprintf(w, "The code expires at %s. Waiting for the approval...\n", p.Expires.Local().Format(time.Kitchen))
	}
}
