#!/usr/bin/env bash
# Measure email-mcp side by side with the raw IMAP protocol and write
# BENCHMARKS.md (issue 7).
#
# It starts its own Dovecot (scripts/dovecot/start.sh) with a 10,000-message
# INBOX, builds email-mcp and email-mcp-bench, runs the binary against
# Dovecot (IMAPS, IMAP_POOL_SIZE=3, RATE_LIMIT_PER_MINUTE=0) and in sandbox
# mode, drives both with email-mcp-bench, and turns the JSON results into
# BENCHMARKS.md and an SVG plot (scripts/bench/report.py, plot.py).
# Everything listens on loopback; every process it starts is stopped by
# PID on exit, Dovecot with scripts/dovecot/stop.sh. About 3-4 minutes.
#
# usage: scripts/bench/run.sh [OUTPUT.md]     (default: BENCHMARKS.md)
#   BENCH_KEEP=1 keeps the work directory (results, logs) for a look.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=${1:-$root/BENCHMARKS.md}
results=$here/results

work=$(mktemp -d /tmp/emcp-bench.XXXXXX)
dove=$(mktemp -d /tmp/emcp-dovecot.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  scripts/dovecot/stop.sh "$dove" >/dev/null 2>&1 || true
  rm -rf "$dove"
  if [ "${BENCH_KEEP:-}" = 1 ]; then echo "run.sh: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "run.sh: $*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_health() { # PORT PID
  local i
  for ((i = 0; i < 200; i++)); do
    curl -sf --noproxy '*' "http://127.0.0.1:$1/health" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# addr_of FILE: the address a listener wrote to FILE (waits 5 s at most).
addr_of() {
  local i
  for ((i = 0; i < 100; i++)); do [ -s "$1" ] && break; sleep 0.05; done
  cat "$1"
}

B=$work/email-mcp-bench
BIN=$work/email-mcp
res=$work/results
mkdir -p "$res" "$work/base/attachments/email/uploads"
: >"$work/commands.txt"

# shell_words ARGS...: the arguments as one line a shell reads back.
shell_words() {
  local a out=()
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:@,=+%-]+$ ]]; then out+=("$a"); else out+=("'${a//\'/\'\\\'\'}'"); fi
  done
  printf '%s' "${out[*]}"
}

# bench NAME ARGS...: run email-mcp-bench, keep its JSON as NAME.json and
# its command line (secrets come from the environment, never the line).
bench() {
  local name=$1
  shift
  log "$name"
  printf 'email-mcp-bench %s\n' "$(shell_words "$@")" | sed "s#$work#\$WORK#g; s#$dove#\$DOVECOT_DIR#g" >>"$work/commands.txt"
  if ! "$B" "$@" >"$res/$name.json" 2>"$work/$name.err"; then
    log "$name failed: $(tail -3 "$work/$name.err")"
    printf '{"failed": true, "error": %s}\n' "$(tail -1 "$work/$name.err" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))')" >"$res/$name.json"
  fi
}

# note LINE: a command line for the report, as run (secrets as $VARIABLES).
note() { printf '%s\n' "$1" >>"$work/commands.txt"; }

machine() {
  python3 - "$@" <<'PY'
import json, os, platform, subprocess, sys
def sh(*a):
    try: return subprocess.run(a, capture_output=True, text=True).stdout.strip()
    except OSError: return "?"
model = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        model = line.split(":", 1)[1].strip(); break
print(json.dumps({"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
    "go": sh("go", "version"), "dovecot": sh("dovecot", "--version"),
    "python": platform.python_version(), "loadavg": open("/proc/loadavg").read().split()[:3]}))
PY
}

log "building"
go build -o "$BIN" ./cmd/email-mcp
go build -o "$B" ./cmd/email-mcp-bench
machine >"$res/machine_start.json"

export MCP_API_KEY="bench-$(openssl rand -hex 16)"

# --- sandbox mode -------------------------------------------------------
sb_port=$(free_port) sb_smtp=$(free_port) sb_imap=$(free_port)
note "# sandbox: env -i PATH=\$PATH HOME=\$WORK MCP_API_KEY=\$MCP_API_KEY MCP_PORT=$sb_port RATE_LIMIT_PER_MINUTE=0 DEV_SMTP_ADDR=127.0.0.1:$sb_smtp DEV_IMAP_ADDR=127.0.0.1:$sb_imap LOG_LEVEL=debug \$WORK/email-mcp serve"
env -i PATH="$PATH" HOME="$work" MCP_API_KEY="$MCP_API_KEY" MCP_PORT="$sb_port" RATE_LIMIT_PER_MINUTE=0 \
  DEV_SMTP_ADDR="127.0.0.1:$sb_smtp" DEV_IMAP_ADDR="127.0.0.1:$sb_imap" LOG_LEVEL=debug \
  "$BIN" serve >"$work/sandbox.out" 2>"$work/sandbox.log" &
sb_pid=$!
pids+=("$sb_pid")
wait_health "$sb_port" "$sb_pid" || { log "sandbox did not start"; tail "$work/sandbox.log" >&2; exit 1; }
sleep 1
bench sandbox_idle proc -pid "$sb_pid" -imap-port "$sb_imap"
bench wait_sandbox wait -url "http://127.0.0.1:$sb_port/mcp" -smtp-addr "127.0.0.1:$sb_smtp" -k 1 -rounds 30 -settle 100ms
bench waiters1000_sandbox wait -url "http://127.0.0.1:$sb_port/mcp" -smtp-addr "127.0.0.1:$sb_smtp" -k 1000 -rounds 1 \
  -pid "$sb_pid" -imap-port "$sb_imap" -wait-timeout 60s
kill -TERM "$sb_pid"; wait "$sb_pid" || true
{ grep -c "imap: watcher connected" "$work/sandbox.log" || true; } >"$res/watcher_connects_sandbox.txt"

log "startup"
note 'env -i PATH=$PATH HOME=$WORK MCP_API_KEY=$MCP_API_KEY DEV_SMTP_ADDR=127.0.0.1:0 DEV_IMAP_ADDR=127.0.0.1:0 email-mcp-bench startup -bin $WORK/email-mcp -runs 5'
env -i PATH="$PATH" HOME="$work" MCP_API_KEY="$MCP_API_KEY" DEV_SMTP_ADDR=127.0.0.1:0 DEV_IMAP_ADDR=127.0.0.1:0 \
  "$B" startup -bin "$BIN" -runs 5 >"$res/startup.json" 2>"$work/startup.err" || echo '{"failed": true}' >"$res/startup.json"

# --- Dovecot ------------------------------------------------------------
log "dovecot"
scripts/dovecot/start.sh "$dove" >/dev/null
python3 scripts/dovecot/seed.py "$dove" INBOX 10000 >&2
# The big mail goes in before the server starts: a pooled connection that
# has INBOX selected does not see mail that arrived since its last command
# (Dovecot updates a session's view at the end of a command), and the
# first UID FETCH of such a UID answers OK with nothing (MESSAGE_NOT_FOUND).
big_uid=$(python3 "$here/bigmail.py" "$dove" INBOX 50000000)
set -a
# shellcheck source=/dev/null
. "$dove/env"
set +a
export IMAP_PASSWORD=$DOVECOT_PASSWORD
imaps_port=${DOVECOT_IMAPS_ADDR##*:}

"$B" sink -addr-file "$work/sink.addr" >"$res/sink.json" 2>"$work/sink.err" &
pids+=("$!")
sink=$(addr_of "$work/sink.addr")

# serve_dovecot NAME PORT [VAR=VALUE...]: email-mcp on the Dovecot account
# over IMAPS (pool of 3, sends to the sink, no rate limit), with the extra
# variables; output in $work/NAME.out and .log, its PID in $served.
serve_dovecot() {
  local name=$1 port=$2
  shift 2
  env -i PATH="$PATH" HOME="$work" IMAP_HOST=127.0.0.1 IMAP_PORT="$imaps_port" IMAP_SSL=true \
  IMAP_USER="$DOVECOT_USER" IMAP_PASSWORD="$DOVECOT_PASSWORD" TLS_CA_FILE="$DOVECOT_CA_FILE" IMAP_POOL_SIZE=3 \
  SMTP_HOST=127.0.0.1 SMTP_PORT="${sink##*:}" SMTP_STARTTLS=false \
    MCP_API_KEY="$MCP_API_KEY" MCP_PORT="$port" RATE_LIMIT_PER_MINUTE=0 "$@" \
    "$BIN" serve >"$work/$name.out" 2>"$work/$name.log" &
  served=$!
  pids+=("$served")
}

dv_port=$(free_port)
note "# scripts/dovecot/start.sh \$DOVECOT_DIR && python3 scripts/dovecot/seed.py \$DOVECOT_DIR INBOX 10000"
note "# email-mcp-bench sink -addr-file \$WORK/sink.addr   (an SMTP server that discards mail, for the send tools)"
note "# Dovecot: env -i PATH=\$PATH HOME=\$WORK IMAP_HOST=127.0.0.1 IMAP_PORT=$imaps_port IMAP_SSL=true IMAP_USER=\$DOVECOT_USER IMAP_PASSWORD=\$DOVECOT_PASSWORD TLS_CA_FILE=\$DOVECOT_CA_FILE IMAP_POOL_SIZE=3 SMTP_HOST=127.0.0.1 SMTP_PORT=${sink##*:} SMTP_STARTTLS=false MCP_API_KEY=\$MCP_API_KEY MCP_PORT=$dv_port RATE_LIMIT_PER_MINUTE=0 LOG_LEVEL=debug EMAIL_BASE_DIR=\$WORK/base WAIT_MAX_SECONDS=120 \$WORK/email-mcp serve"
serve_dovecot dovecot-serve "$dv_port" LOG_LEVEL=debug EMAIL_BASE_DIR="$work/base" WAIT_MAX_SECONDS=120
dv_pid=$served
wait_health "$dv_port" "$dv_pid" || { log "email-mcp on Dovecot did not start"; tail "$work/dovecot-serve.log" >&2; exit 1; }
sleep 1
bench dovecot_idle proc -pid "$dv_pid" -imap-port "$imaps_port"
url="http://127.0.0.1:$dv_port/mcp"

# The 50 MB transfers first, while the server's heap is small: later runs
# leave tens of MB of free heap resident, which would hide a growth.
log "50 MB attachment"
note 'python3 scripts/bench/bigmail.py $DOVECOT_DIR INBOX 50000000   # one mail with a 50 MB attachment, appended before the server starts'
note 'head -c 50000000 /dev/urandom >$WORK/base/attachments/email/uploads/big.bin'
head -c 50000000 /dev/urandom >"$work/base/attachments/email/uploads/big.bin"
bench download50 load -url "$url" -pid "$dv_pid" -tool download_attachment -args "{\"uid\":$big_uid,\"attachment_index\":0}" \
  -c 1 -n 1 -warmup 0 -timeout 300s
bench send50 load -url "$url" -pid "$dv_pid" -tool send_email_with_attachments \
  -args '{"to":["someone@example.test"],"subject":"export","body":"attached","attachment_paths":["uploads/big.bin"]}' \
  -c 1 -n 1 -warmup 0 -timeout 300s

imap=(-imap-addr "$DOVECOT_IMAPS_ADDR" -imap-user "$DOVECOT_USER" -ca-file "$DOVECOT_CA_FILE")
bench compare_search compare -url "$url" -pid "$dv_pid" -op search -limit 50 "${imap[@]}" -c 1 -n 1000 -slices 20 -warmup 30
bench compare_read compare -url "$url" -pid "$dv_pid" -op read -uid 9990 "${imap[@]}" -c 1 -n 2000 -slices 20 -warmup 50
bench floor_mcp load -url "$url" -tool read_email -args '{"uid":"not-a-uid"}' -accept tool_INVALID_ARGUMENT -c 1 -n 500 -warmup 50 -pid "$dv_pid"
# The floor under any MCP server over HTTP here: a server that answers each
# call at once with a result of the size read_email / search_emails return
# (2.4 KB and 35 KB answers), driven by the same client.
for f in read:1100 search:16000; do
  rm -f "$work/echo.addr"
  note "email-mcp-bench echo -addr-file \$WORK/echo.addr -size ${f#*:}"
  "$B" echo -addr-file "$work/echo.addr" -size "${f#*:}" >"$work/echo.json" 2>"$work/echo.err" &
  echo_pid=$!
  pids+=("$echo_pid")
  bench "floor_http_${f%%:*}" load -url "http://$(addr_of "$work/echo.addr")/mcp" -tool "${f%%:*}" -args '{}' -c 1 -n 1000 -warmup 50
  kill -TERM "$echo_pid"; wait "$echo_pid" || true
done

for c in 1 2 4 8 16 32; do
  bench "curve_$c" compare -url "$url" -pid "$dv_pid" -op search -limit 50 "${imap[@]}" -conns 3 -c "$c" -d 4s -slices 4 -warmup "$c"
done

bench wait_dovecot wait -url "$url" -lmtp-addr "$DOVECOT_LMTP_ADDR" -k 1 -rounds 20
bench wait_floor wait -raw -lmtp-addr "$DOVECOT_LMTP_ADDR" "${imap[@]}" -rcpt "$DOVECOT_USER" -rounds 20
bench waiters1000 wait -url "$url" -lmtp-addr "$DOVECOT_LMTP_ADDR" -k 1000 -rounds 1 -pid "$dv_pid" -imap-port "$imaps_port" -wait-timeout 60s
{ grep -c "imap: watcher connected" "$work/dovecot-serve.log" || true; } >"$res/watcher_connects.txt"

bench dovecot_after proc -pid "$dv_pid" -imap-port "$imaps_port"

kill -TERM "$dv_pid"; wait "$dv_pid" || true

# The same server with one P for the Go scheduler (GOMAXPROCS=1): on a
# small machine shared with the mail server and the client, an idle P makes
# the runtime wake and spin threads on every goroutine wake-up.
p1_port=$(free_port)
note "# Dovecot, GOMAXPROCS=1: the same environment with GOMAXPROCS=1 MCP_PORT=$p1_port"
serve_dovecot dovecot-p1 "$p1_port" GOMAXPROCS=1
p1_pid=$served
if wait_health "$p1_port" "$p1_pid"; then
  p1_url="http://127.0.0.1:$p1_port/mcp"
  bench p1_compare_search compare -url "$p1_url" -pid "$p1_pid" -op search -limit 50 "${imap[@]}" -c 1 -n 1000 -slices 20 -warmup 30
  bench p1_compare_read compare -url "$p1_url" -pid "$p1_pid" -op read -uid 9990 "${imap[@]}" -c 1 -n 2000 -slices 20 -warmup 50
  bench p1_curve_32 compare -url "$p1_url" -pid "$p1_pid" -op search -limit 50 "${imap[@]}" -conns 3 -c 32 -d 4s -slices 4 -warmup 32
else
  log "email-mcp with GOMAXPROCS=1 did not start"
fi
kill -TERM "$p1_pid"; wait "$p1_pid" || true

# The same account with IDLE push only (no NOOP polling while a wait is
# active): what wait_for_otp adds on top of Dovecot's own IDLE delay.
idle_port=$(free_port)
note "# Dovecot, IDLE push only: the same environment with WAIT_POLL_MS=0 MCP_PORT=$idle_port"
serve_dovecot dovecot-idle "$idle_port" WAIT_POLL_MS=0
idle_pid=$served
if wait_health "$idle_port" "$idle_pid"; then
  bench wait_dovecot_idle wait -url "http://127.0.0.1:$idle_port/mcp" -lmtp-addr "$DOVECOT_LMTP_ADDR" -k 1 -rounds 10
else
  log "email-mcp with WAIT_POLL_MS=0 did not start"
fi
kill -TERM "$idle_pid"; wait "$idle_pid" || true
machine >"$res/machine_end.json"

mkdir -p "$results"
rm -f "$results"/*.json "$results"/*.txt
cp "$res"/*.json "$res"/*.txt "$work/commands.txt" "$results/"
python3 "$here/plot.py" "$results" "$results/latency-vs-concurrency.svg"
python3 "$here/report.py" "$results" "$out"
log "wrote $out"
