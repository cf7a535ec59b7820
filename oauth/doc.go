// Package oauth gives email-mcp OAuth 2.0 access tokens for IMAP and SMTP
// sign-in (SASL XOAUTH2 / OAUTHBEARER, which the imap and smtp adapters
// speak). A source has two methods, which both adapters' TokenSource
// interfaces ask for:
//
//	tok, err := src.Token(ctx) // a token good for at least a minute
//	src.Refused(tok)           // the server refused it: fetch a new one next time
//
// The sources:
//
//   - [Refresh] trades a refresh token for access tokens at the token
//     endpoint (golang.org/x/oauth2): refreshed a minute before expiry, once
//     for every pooled connection, retried with backoff when the endpoint
//     fails; a refresh token the server no longer takes (invalid_grant) is a
//     [*ConfigError] that says to run `email-mcp login` again.
//   - [Command] runs a program that prints a token (for users who manage
//     tokens with another tool, such as a password manager or gcloud).
//   - [File] reads a file that something else keeps fresh.
//
// [DeviceLogin] runs the device authorization grant (RFC 8628) for
// `email-mcp login`, and [Save] / [Load] keep its result in a 0600 file.
// No function of this package logs or returns a token, a refresh token or
// a client secret in an error.
package oauth
