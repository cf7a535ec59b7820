#!/usr/bin/env bash
# Run the Go test suites against a real Dovecot: install it if needed, start
# a private one in a temp dir, export its variables
# (EMAIL_MCP_TEST_DOVECOT=1, DOVECOT_*), run `go test -count=1 ./...` with
# the extra arguments given, then stop Dovecot and remove the dir, also on
# failure or Ctrl-C. Set DOVECOT_KEEP=1 to keep the dir (logs) afterwards.
#
# usage: scripts/dovecot/run-tier.sh [go test args...]   e.g. -race, -run TestX ./imap/...
# Package patterns among the arguments replace ./... .
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

"$here/install.sh"
dir=$(mktemp -d /tmp/emcp-dovecot.XXXXXX)
cleanup() {
  local rc=$?
  "$here/stop.sh" "$dir" >/dev/null || true
  if [ "${DOVECOT_KEEP:-}" = 1 ] || [ "$rc" -ne 0 ]; then
    echo "run-tier.sh: Dovecot files kept in $dir (log: $dir/dovecot.log)" >&2
  else
    rm -rf "$dir"
  fi
  return "$rc"
}
trap cleanup EXIT
"$here/start.sh" "$dir"
set -a
# shellcheck source=/dev/null
. "$dir/env"
set +a

# ./... unless the arguments name packages themselves.
pkgs=(./...)
for arg in "$@"; do
  case "$arg" in
  ./* | github.com/*) pkgs=() ;;
  esac
done
# In the background, so that a TERM or Ctrl-C reaches the traps (and so
# stops Dovecot) at once rather than after the tests.
go test -count=1 "$@" "${pkgs[@]}" &
gotest=$!
trap 'kill -INT "$gotest" 2>/dev/null; wait "$gotest" || true; exit 130' INT
trap 'kill -INT "$gotest" 2>/dev/null; wait "$gotest" || true; exit 143' TERM
wait "$gotest"
