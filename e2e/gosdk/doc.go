// Package gosdk drives the email-mcp binary with the official Go MCP SDK
// (github.com/modelcontextprotocol/go-sdk), speaking protocol revision
// 2026-07-28: no initialize, a server/discover first, then stateless calls.
//
// It is a module of its own, so the SDK is a dependency of this test only,
// not of the server. Run it from this folder (scripts/e2e.sh does):
//
//	go test ./...                       builds ../../cmd/email-mcp and runs it on its sandbox
//	E2E_BIN=/path/to/email-mcp go test ./...
//	E2E_DOVECOT_ENV=DIR/env go test ./...   the same tests on a real Dovecot
//
// The suite configures each server it starts (tier_test.go): by default the
// embedded sandbox; with E2E_DOVECOT_ENV naming the env file that
// scripts/dovecot/start.sh writes, a fresh user of that Dovecot's test
// domain over IMAPS (TLS_CA_FILE = its CA), sending through a relay in the
// test (relay_test.go: SMTP with AUTH in front of Dovecot's LMTP). The app's
// mail takes the same relay, so a wait sees mail that Dovecot delivered and
// IDLE reported. Every test runs on both tiers: none is about the sandbox
// itself.
package gosdk
