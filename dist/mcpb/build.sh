#!/usr/bin/env bash
# Build the MCPB bundle (an MCP Bundle for Claude Desktop and other hosts that
# install .mcpb files): the email-mcp binary for one platform plus
# manifest.json, packed with the mcpb CLI pinned in e2e/package.json.
#
# usage: dist/mcpb/build.sh [OUT]      default OUT: dist/email-mcp.mcpb
#   GOOS/GOARCH  target platform (default: this machine's)
#   VERSION      bundle and binary version (default: the manifest's)
#   BIN          pack this already built binary instead of building one
#                (it must be for GOOS/GOARCH; scripts/e2e.sh uses it)
#
# The bundle holds server/email-mcp (server/email-mcp.exe on Windows); the
# manifest in the bundle names that one platform in compatibility.platforms.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:-$root/dist/email-mcp.mcpb}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
goos=${GOOS:-$(go env GOOS)}
goarch=${GOARCH:-$(go env GOARCH)}
version=${VERSION:-$(node -p 'require(process.argv[1]).version' "$root/dist/mcpb/manifest.json")}

mcpb="$root/e2e/node_modules/.bin/mcpb"
if [ ! -x "$mcpb" ]; then
  (cd "$root/e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
exe=email-mcp
platform=$goos
case "$goos" in
  windows) exe=email-mcp.exe platform=win32 ;;
  darwin | linux) ;;
  *) echo "build.sh: MCPB hosts run on darwin, linux and windows, not $goos" >&2; exit 2 ;;
esac

mkdir -p "$stage/server"
if [ -n "${BIN:-}" ]; then
  echo "mcpb: packing $BIN as email-mcp $version for $goos/$goarch"
  cp "$BIN" "$stage/server/$exe"
else
  echo "mcpb: building email-mcp $version for $goos/$goarch"
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "-s -w -X main.version=$version" \
    -o "$stage/server/$exe" ./cmd/email-mcp
fi

# The manifest for this one platform and version.
node - "$root/dist/mcpb/manifest.json" "$stage/manifest.json" "$exe" "$platform" "$version" <<'JS'
const fs = require('node:fs');
const [src, dst, exe, platform, version] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(src, 'utf8'));
m.version = version;
m.server.entry_point = `server/${exe}`;
m.server.mcp_config.command = `\${__dirname}/server/${exe}`;
m.compatibility = { ...(m.compatibility ?? {}), platforms: [platform] };
fs.writeFileSync(dst, JSON.stringify(m, null, 2) + '\n');
JS

mkdir -p "$(dirname "$out")"
rm -f "$out"
"$mcpb" pack "$stage" "$out"
echo "mcpb: wrote $out"
