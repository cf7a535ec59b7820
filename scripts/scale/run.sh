#!/usr/bin/env bash
# The scale test: three replicas of email-mcp over one account of the tier's
# Dovecot, behind a real nginx running deploy/nginx/email-mcp.conf (its
# replica addresses and listen port replaced), driven by scripts/scale (Go):
#   - 20 legacy SSE sessions through round robin, and 20 through the recipe
#     (hash $remote_addr for /sse and /message), from 20 source addresses;
#   - search_emails throughput through nginx over 1, 2 and 3 replicas;
#   - 300 wait_for_otp calls at once on 300 inboxes made by create_inbox,
#     the codes delivered through Dovecot's LMTP, searches and reads
#     alongside, while replica 2 gets SIGTERM and replica 3 SIGKILL (each
#     started again): every code must reach its wait (retries use next_since
#     or the caller's since), none wrong, none twice;
#   - SEND_MAX_PER_HOUR=5 on each replica, 20 sends through nginx: the
#     number delivered must be exactly 5 (the cap is the account's, counted
#     in the mailbox; EMAIL_MCP_SCALE_STRICT_CAP=0 only reports it);
#   - the IMAP connections of each replica (ss -tnp, by PID).
# It prints a JSON report and a summary; exit 1 when a property fails.
# nginx runs from a temp dir on loopback ports and is stopped by its PID.
#
# usage: scripts/scale/run.sh DIR [path/to/email-mcp]
#   DIR: a Dovecot started by scripts/dovecot/start.sh
#   SCALE_REPORT=path   also write the JSON report there
#   SCALE_KEEP=1        keep the work folder (logs)
#   SCALE_ARGS="-waits 30"  extra flags for the driver (go run ./scripts/scale -h)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
dir=$(cd "${1:?usage: run.sh DIR [binary]}" && pwd)
bin=${2:-}
[ -f "$dir/env" ] || { echo "scale: $dir/env missing: start Dovecot with scripts/dovecot/start.sh" >&2; exit 1; }
command -v nginx >/dev/null || "$here/install-nginx.sh"
command -v ss >/dev/null || { echo "scale: ss (iproute2) is needed to count IMAP connections" >&2; exit 1; }

work=$(mktemp -d /tmp/emcp-scale.XXXXXX)
nginx_pid=""
cleanup() {
  if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
    kill -QUIT "$nginx_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  if [ "${SCALE_KEEP:-}" = 1 ]; then echo "scale: work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "scale: FAIL: $*" >&2
  tail -n 20 "$work/nginx-error.log" >&2 2>/dev/null || true
  exit 1
}

if [ -z "$bin" ]; then bin="$work/email-mcp"; go build -o "$bin" ./cmd/email-mcp; fi
go build -o "$work/scale" ./scripts/scale

# Eight free loopback ports at once: three replicas, five nginx servers.
read -r r1 r2 r3 lb naive lb1 lb2 lb3 < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(8)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))
for s in ss: s.close()')

# The recipe, as shipped, with this run's addresses; X-Upstream shows the
# test which replica answered.
conf=deploy/nginx/email-mcp.conf
sed -e "s/127\.0\.0\.1:8421/127.0.0.1:$r1/; s/127\.0\.0\.1:8422/127.0.0.1:$r2/; s/127\.0\.0\.1:8423/127.0.0.1:$r3/" \
  -e "s/^\( *\)listen 80;/\1listen 127.0.0.1:$lb;/" \
  -e "s/^\( *\)server_name .*/&\n\1add_header X-Upstream \$upstream_addr always;/" "$conf" >"$work/email-mcp.conf"
for p in "$r1" "$r2" "$r3"; do
  [ "$(grep -c "127.0.0.1:$p " "$work/email-mcp.conf")" = 2 ] || fail "$conf: expected each replica in both upstreams"
done
grep -q "listen 127.0.0.1:$lb;" "$work/email-mcp.conf" || fail "$conf: no 'listen 80;' to point at the test port"

# Test-only servers: everything round robin (the setup of the issue, SSE
# included), and search throughput over the first 1, 2 and 3 replicas.
proxy='proxy_set_header Host $http_host; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; proxy_read_timeout 180s; add_header X-Upstream $upstream_addr always;'
mkdir -p "$work/tmp"
chmod 0711 "$work"
chmod 0777 "$work/tmp"
user_line=""
[ "$(id -u)" -eq 0 ] && user_line="user nobody nogroup;"
cat >"$work/nginx.conf" <<CONF
# Written by scripts/scale/run.sh. Loopback only.
$user_line
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
    include $work/email-mcp.conf;

    server { listen 127.0.0.1:$naive; $proxy location / { proxy_pass http://email_mcp; } }
    upstream scale_1 { server 127.0.0.1:$r1; keepalive 32; }
    upstream scale_2 { server 127.0.0.1:$r1; server 127.0.0.1:$r2; keepalive 32; }
    upstream scale_3 { server 127.0.0.1:$r1; server 127.0.0.1:$r2; server 127.0.0.1:$r3; keepalive 32; }
    server { listen 127.0.0.1:$lb1; $proxy location / { proxy_pass http://scale_1; } }
    server { listen 127.0.0.1:$lb2; $proxy location / { proxy_pass http://scale_2; } }
    server { listen 127.0.0.1:$lb3; $proxy location / { proxy_pass http://scale_3; } }
}
CONF
nginx -t -q -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" || fail "nginx -t"
nginx -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" </dev/null >/dev/null 2>>"$work/nginx-error.log" &
nginx_pid=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$lb") 2>/dev/null && break; sleep 0.1; done
(exec 3<>"/dev/tcp/127.0.0.1/$lb") 2>/dev/null || fail "nginx does not listen on 127.0.0.1:$lb"
echo "scale: $(nginx -v 2>&1) pid $nginx_pid on 127.0.0.1:$lb (recipe), :$naive (round robin), :$lb1/:$lb2/:$lb3 (1/2/3 replicas); replicas on :$r1 :$r2 :$r3"

mkdir -p "$work/logs"
rc=0
"$work/scale" -bin "$bin" -dovecot "$dir" -ports "$r1,$r2,$r3" -logs "$work/logs" \
  -lb "http://127.0.0.1:$lb" -lb-naive "http://127.0.0.1:$naive" \
  -lb-n "http://127.0.0.1:$lb1,http://127.0.0.1:$lb2,http://127.0.0.1:$lb3" \
  -json "${SCALE_REPORT:-$work/report.json}" ${SCALE_ARGS:-} || rc=$?
if [ "$rc" != 0 ]; then
  for f in "$work"/logs/*.log; do
    echo "--- $(basename "$f") (last 10 lines)" >&2
    tail -n 10 "$f" >&2
  done
  fail "the scale driver reported failures (exit $rc)"
fi
# No replica log holds the API key or the account password.
set -a; . "$dir/env"; set +a
if grep -rqF -- "$DOVECOT_TEST_PASSWORD" "$work/logs"; then fail "a replica logged the account password"; fi
echo "scale: OK"
