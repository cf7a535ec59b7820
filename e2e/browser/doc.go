// Package browser drives the web inbox (/ui) of the email-mcp binary with a
// real headless Chromium through chromedp: sign-in, live arrival of mail
// delivered by SMTP, the message view with its code, an attachment
// download, delete, and the refusals (a wrong key, a cross-site POST, an
// HTML mail's script and remote image).
//
// It is a module of its own, so chromedp is a dependency of this test only,
// not of the server. Run it from this folder (scripts/e2e.sh does):
//
//	go test ./...                       builds ../../cmd/email-mcp and runs it on its sandbox
//	E2E_BIN=/path/to/email-mcp CHROMIUM=/usr/bin/chromium go test ./...
//
// Screenshots of the list and of the message view are written to a
// temporary folder (E2E_SHOTS to choose it); the test prints their paths.
package browser
