#!/usr/bin/env bash
# SEND_MAX_PER_HOUR across replicas, with built binaries: two `email-mcp
# serve` processes over one Dovecot account (the tier's), both submitting to
# the SMTP port of a third one that runs the sandbox (a catch-all that
# delivers into its own INBOX). With SEND_MAX_PER_HOUR=5, ten sends at once,
# five to each replica, deliver exactly 5; the others are RATE_LIMITED.
# Each replica used to count alone and let 10 out. Loopback only; waits are
# bounded; only the processes started here are stopped, by PID.
#
# usage: scripts/dovecot/sendcap-binary.sh DIR [path/to/email-mcp]
#   DIR: a Dovecot started by start.sh (its env file is read)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
dir=${1:?usage: sendcap-binary.sh DIR [binary]}
bin=${2:-}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$bin" ]; then bin="$work/email-mcp"; go build -o "$bin" ./cmd/email-mcp; fi
# shellcheck source=/dev/null
set -a; . "$dir/env"; set +a
fail() { echo "sendcap-binary: FAIL: $*" >&2; for f in "$work"/*.log; do echo "--- $f" >&2; tail -20 "$f" >&2; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
curl_() { curl -sS --noproxy '*' --max-time 30 "$@"; }
key="sendcap-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
healthy() {
  for _ in $(seq 100); do curl_ -fs "http://127.0.0.1:$1/health" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "serve on port $1 not healthy"
}

# The SMTP sink: a sandbox binary.
sink_port=$(free_port); sink_smtp=$(free_port)
env -i PATH="$PATH" HOME="$work" MCP_API_KEY="$key" MCP_PORT="$sink_port" DEV_SMTP_ADDR="127.0.0.1:$sink_smtp" \
  DEV_IMAP_ADDR="127.0.0.1:$(free_port)" SEND_MAX_PER_HOUR=0 "$bin" serve --env-file /dev/null >"$work/sink.out" 2>"$work/sink.log" </dev/null &
pids+=($!)
healthy "$sink_port"

# Two replicas over one Dovecot account.
imap_host=${DOVECOT_IMAP_ADDR%:*}; imaps_port=${DOVECOT_IMAPS_ADDR##*:}
user=sendcap-$RANDOM@${DOVECOT_TEST_DOMAIN}
ports=()
for i in 1 2; do
  p=$(free_port); ports+=("$p")
  env -i PATH="$PATH" HOME="$work" IMAP_HOST="$imap_host" IMAP_PORT="$imaps_port" IMAP_USER="$user" IMAP_PASSWORD="$DOVECOT_TEST_PASSWORD" \
    TLS_CA_FILE="$DOVECOT_CA_FILE" SMTP_HOST=127.0.0.1 SMTP_PORT="$sink_smtp" SMTP_STARTTLS=false INBOX_ADDRESS="$user" \
    MCP_API_KEY="$key" MCP_PORT="$p" SEND_MAX_PER_HOUR=5 RATE_LIMIT_PER_MINUTE=0 \
    "$bin" serve --env-file /dev/null >"$work/replica$i.out" 2>"$work/replica$i.log" </dev/null &
  pids+=($!)
done
for p in "${ports[@]}"; do healthy "$p"; done

# Ten sends at once, alternating between the replicas.
for i in $(seq 0 9); do
  p=${ports[$((i % 2))]}
  curl_ -H "X-API-Key: $key" -H 'Content-Type: application/json' \
    -d "{\"method\":\"tools/call\",\"params\":{\"name\":\"send_email\",\"arguments\":{\"to\":\"qa@example.test\",\"subject\":\"capped $i\",\"body\":\"b\"}}}" \
    "http://127.0.0.1:$p/mcp/call" >"$work/send$i.json" &
done
wait_sends() { for _ in $(seq 300); do [ "$(find "$work" -name 'send*.json' -size +0 | wc -l)" = 10 ] && return 0; sleep 0.1; done; fail "sends did not finish"; }
wait_sends
sleep 0.2
sent=$(cat "$work"/send*.json | grep -o '"success":true' | wc -l || true)
limited=$(cat "$work"/send*.json | grep -o '"code":"RATE_LIMITED"' | wc -l || true)
out=$(curl_ -H "X-API-Key: $key" -H 'Content-Type: application/json' \
  -d '{"method":"tools/call","params":{"name":"list_folders","arguments":{"include_counts":true}}}' "http://127.0.0.1:$sink_port/mcp/call")
delivered=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print([f["messages"] for f in r["structuredContent"]["folders"] if f["name"]=="INBOX"][0])' "$out")
[ "$sent" = 5 ] && [ "$limited" = 5 ] && [ "$delivered" = 5 ] ||
  fail "10 sends over two replicas with SEND_MAX_PER_HOUR=5: $sent sent, $limited RATE_LIMITED, $delivered delivered; want 5, 5, 5"
echo "sendcap-binary: OK (two serve processes over one Dovecot account, SEND_MAX_PER_HOUR=5: 10 sends at once, 5 delivered, 5 RATE_LIMITED)"
