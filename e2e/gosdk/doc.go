// Package gosdk drives the email-mcp binary with the official Go MCP SDK
// (github.com/modelcontextprotocol/go-sdk), speaking protocol revision
// 2026-07-28: no initialize, a server/discover first, then stateless calls.
//
// It is a module of its own, so the SDK is a dependency of this test only,
// not of the server. Run it from this folder (scripts/e2e.sh does):
//
//	go test ./...                       builds ../../cmd/email-mcp and runs it on its sandbox
//	E2E_BIN=/path/to/email-mcp go test ./...
package gosdk
