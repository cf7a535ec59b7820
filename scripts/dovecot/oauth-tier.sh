#!/usr/bin/env bash
# oauth-tier.sh [go test args]: the OAuth 2.0 tier. It starts the loopback
# authorization server of internal/mailtest/authserverd (refresh and device
# grants, RFC 7662 introspection), then a private Dovecot (start.sh) whose
# oauth2 passdb checks XOAUTH2 and OAUTHBEARER tokens at that server, runs
# the Go tests built with -tags dovecotoauth (cmd/email-mcp's
# TestDovecotOAuth*: check with each mechanism, a revoked refresh token, an
# expired access token, the device grant end to end), and greps their whole
# output for any access token, refresh token, device code or the client
# secret. Everything stops by PID at the end, also on failure or Ctrl-C;
# DOVECOT_KEEP=1 keeps the folder. Extra arguments go to go test.
#
# Not Ory Hydra: `go get -tool github.com/ory/hydra/v2@v2.3.0` did not
# build here (persistence/sql: p.conn.Store.SQLDB undefined, its pinned pop
# fork is a replace directive that a dependent module does not get). Not
# zitadel/oidc v3.52.0's example OP either: its device client may use only
# the device_code grant (no refresh tokens, and its fields are unexported),
# so it cannot give the refresh token that `email-mcp login` stores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

"$here/install.sh"
dir=$(mktemp -d /tmp/emcp-oauth.XXXXXX)
as_pid=""
cleanup() {
  "$here/stop.sh" "$dir" >/dev/null 2>&1 || true
  if [ -n "$as_pid" ]; then kill "$as_pid" 2>/dev/null || true; fi
  if [ "${DOVECOT_KEEP:-}" = 1 ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT INT TERM

(cd "$repo" && go build -o "$dir/authserverd" ./internal/mailtest/authserverd)
"$dir/authserverd" -env "$dir/oauth.env" </dev/null >"$dir/authserverd.log" 2>&1 &
as_pid=$!
for ((i = 0; i < 100; i++)); do
  [ -s "$dir/oauth.env" ] && break
  sleep 0.1
done
[ -s "$dir/oauth.env" ] || { echo "oauth-tier: the authorization server did not start" >&2; exit 1; }
set -a
. "$dir/oauth.env"
set +a

"$here/start.sh" "$dir"
set -a
. "$dir/env"
set +a

status=0
(cd "$repo" && go test -tags dovecotoauth -count=1 -v -run 'TestDovecotOAuth' ./cmd/email-mcp "$@") >"$dir/test.log" 2>&1 || status=$?
cat "$dir/test.log"
if grep -Eq 'at-[0-9a-f]{48}|rt-[0-9a-f]{32}|dc-[0-9a-f]{32}|bogus-access-token' "$dir/test.log" ||
  grep -qF "$DOVECOT_OAUTH_CLIENT_SECRET" "$dir/test.log"; then
  echo "oauth-tier: FAIL: a token, a device code or the client secret is in the test output" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "oauth-tier: OK (no token or secret in the test output)"
exit "$status"
