package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/config"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// runCheck is `email-mcp check`: it connects to IMAP and SMTP with the
// configuration on fresh connections and prints what works (TLS mode used,
// capabilities, login result) and a diagnosis. Exit 1 when a part fails.
func runCheck(ctx context.Context, cfg *config.Config, stdout, stderr io.Writer) int {
	log := newLogger(cfg, stderr)
	a, err := newApp(ctx, cfg, log, sandboxOptions{fallbackPorts: true})
	if err != nil {
		var ve *config.VarError
		if errors.As(err, &ve) {
			fmt.Fprintf(stderr, "email-mcp: the configuration is not valid:\n  %s\n", ve)
			return exitConfig
		}
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return exitFailure
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	failed, parts := 0, 0
	for i, b := range a.boxes {
		if len(a.boxes) > 1 {
			fmt.Fprintf(stdout, "== account %s (%d of %d)\n", b.name, i+1, len(a.boxes))
		}
		f, p := checkBox(ctx, b, stdout)
		failed, parts = failed+f, parts+p
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "Result: FAILED (%d of %d parts)\n", failed, parts)
		return exitFailure
	}
	fmt.Fprintln(stdout, "Result: OK")
	return exitOK
}

// checkBox checks one account's IMAP and SMTP; it returns the parts that
// failed and the parts checked.
func checkBox(ctx context.Context, b *mailbox, stdout io.Writer) (failed, parts int) {
	cfg := b.cfg
	mode := "real account"
	if cfg.Sandbox() {
		mode = "embedded sandbox (no IMAP_HOST set)"
	}
	fmt.Fprintf(stdout, "email-mcp %s check: %s\n", buildVersion(), mode)
	if !cfg.Sandbox() {
		fmt.Fprintf(stdout, "provider preset: %s\nsign-in: %s\n", cfg.EmailProvider, signIn(cfg))
	}
	fmt.Fprintln(stdout)

	id := b.mail.Diagnose(ctx)
	fmt.Fprintf(stdout, "IMAP %s (%s)\n", id.Address, id.Security)
	if id.Mechanism != "" && id.LoginOK {
		id.Steps = append(id.Steps, "signed in with SASL "+id.Mechanism)
	}
	failed += printDiagnosis(stdout, id.Steps, id.Err, cfg.OAuth())

	parts = 1
	if b.sender != nil {
		parts++
		sd := b.sender.Diagnose(ctx)
		fmt.Fprintf(stdout, "SMTP %s (%s)\n", sd.Address, sd.Security)
		if sd.Mechanism != "" {
			sd.Steps = append(sd.Steps, "signed in with SASL "+sd.Mechanism)
		}
		failed += printDiagnosis(stdout, sd.Steps, sd.Err, cfg.OAuth())
	} else {
		fmt.Fprintln(stdout, "SMTP not configured (MCP_READ_ONLY=true without SMTP_HOST): sending is off")
		fmt.Fprintln(stdout)
	}
	return failed, parts
}

// printDiagnosis prints the steps and, on failure, the stable code with a
// hint; it returns 1 when err is set.
func printDiagnosis(w io.Writer, steps []string, err error, oauth bool) int {
	for _, s := range steps {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if err == nil {
		fmt.Fprintln(w, "  OK")
		fmt.Fprintln(w)
		return 0
	}
	te := tools.Classify(err)
	fmt.Fprintf(w, "  FAILED %s: %v\n", te.Code, err)
	hint := hints[te.Code]
	if oauth && te.Code == mcpkit.CodeAuthFailed {
		hint = oauthHint
	}
	if hint != "" {
		fmt.Fprintf(w, "  hint: %s\n", hint)
	}
	fmt.Fprintln(w)
	return 1
}

// oauthHint is the AUTH_FAILED hint with EMAIL_AUTH=oauth2.
const oauthHint = "the OAuth token was refused or could not be had (the reason is above): " +
	"a dead refresh token needs `email-mcp login` again; check OAUTH_SCOPES, and that IMAP_USER/SMTP_USER is the account that signed in"

// signIn says how check signs in, without secrets.
func signIn(cfg *config.Config) string {
	if !cfg.OAuth() {
		return "password"
	}
	src := "the token stored by `email-mcp login` in " + cfg.TokenStorePath()
	switch {
	case cfg.OAuthTokenCommand != "":
		src = "OAUTH_TOKEN_COMMAND"
	case cfg.OAuthAccessTokenFile != "":
		src = "OAUTH_ACCESS_TOKEN_FILE " + cfg.OAuthAccessTokenFile
	case cfg.OAuthRefreshToken.IsSet():
		src = "OAUTH_REFRESH_TOKEN at " + cfg.OAuthTokenURL
	}
	return "OAuth 2.0 (mechanism " + string(cfg.OAuthMechanism) + "; token from " + src + ")"
}

var hints = map[mcpkit.Code]string{
	mcpkit.CodeAuthFailed: "check the user and password; Gmail and Outlook need an app password when 2-step verification is on",
	mcpkit.CodeTLSFailed: strings.Join([]string{
		"the server's certificate is not trusted or TLS is not offered;",
		"set TLS_CA_FILE to your CA, or check IMAP_SSL/IMAP_STARTTLS and SMTP_SSL/SMTP_STARTTLS against the port",
		"(993/465 implicit TLS, 143/587 STARTTLS)",
	}, " "),
	mcpkit.CodeConnectionFailed:  "check the host and port, and that a firewall lets this machine reach them",
	mcpkit.CodeConnectionTimeout: "the server did not answer: check the port and the TLS mode (implicit TLS on a STARTTLS port hangs)",
}
