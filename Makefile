# Entry points; the logic lives in the scripts they call.
#   make build   the binary in bin/ (static, trimmed)
#   make test    go test -race ./...
#   make e2e     real MCP clients against the built binary (scripts/e2e.sh);
#                DOVECOT_DIR=dir (a Dovecot from scripts/dovecot/start.sh) adds the Dovecot run
#   make mcpb    the MCPB bundle for this platform: dist/email-mcp.mcpb
GO ?= go

.PHONY: build test e2e mcpb

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/email-mcp ./cmd/email-mcp

test:
	$(GO) test -race ./...

e2e:
	scripts/e2e.sh

mcpb:
	dist/mcpb/build.sh dist/email-mcp.mcpb
