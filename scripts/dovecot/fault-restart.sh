#!/usr/bin/env bash
# A real Dovecot restart under load, through the built binary: `email-mcp
# serve` (read-only, toolset mail, no rate limit) over the tier's Dovecot,
# 8 Python threads calling list_folders, search_emails and read_email over
# /mcp/call without pause, while Dovecot is stopped (stop.sh, then the rest
# of its processes, as systemd's restart does) and started again on the
# same ports (dovecot -c DIR/dovecot.conf, as start.sh does).
#
# It checks that every call came back (a result or a typed error: no HTTP
# error, no INTERNAL, none past the hang limit), that calls failed while
# Dovecot was down and succeed again within RECOVER_LIMIT seconds after it
# is back, and that the binary is still healthy (/health, /ready, the same
# PID, a clean exit on SIGTERM). It prints the counts, with a FAULTS line.
#
# usage: scripts/dovecot/fault-restart.sh DIR [path/to/email-mcp]
#   DIR: a Dovecot started by start.sh (its env file and dovecot.conf are read)
# Loopback only; every wait is bounded. Dovecot runs again when it exits.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
dir=$(cd "${1:?usage: fault-restart.sh DIR [binary]}" && pwd)
bin=${2:-}
WORKERS=${WORKERS:-8}
BEFORE=${BEFORE:-3}           # seconds of load before the stop
DOWN=${DOWN:-3}               # seconds Dovecot stays down
AFTER=${AFTER:-8}             # seconds of load after the start
HANG_LIMIT=${HANG_LIMIT:-60}  # a call not answered by then hung (IMAP command timeout 30 s + margin)
RECOVER_LIMIT=${RECOVER_LIMIT:-10}
work=$(mktemp -d)
pid=""
driver=""
log() { echo "fault-restart: $*" >&2; }
fail() {
  echo "fault-restart: FAIL: $*" >&2
  [ -f "$work/log" ] && tail -30 "$work/log" >&2
  exit 1
}

# greets PORT succeeds when an IMAP greeting arrives on 127.0.0.1:PORT.
greets() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    IFS= read -r -t 2 line <&3
    [[ $line == "* OK"* ]]
  ) 2>/dev/null
}

# end_session ends what is left of the Dovecot whose master was PID: stop.sh
# stops the master, but its imap processes go on serving the connections
# they have for seconds. A real restart (systemd ends every process of the
# unit) cuts them: every process of the master's session (Dovecot's master
# calls setsid, so the session id is its pid) gets TERM, then KILL.
end_session() {
  local pids i
  pids=$(ps -o pid= -s "$1" | tr -d ' ' | tr '\n' ' ' || true)
  [ -n "${pids// /}" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    pids=$(ps -o pid= -s "$1" | tr -d ' ' | tr '\n' ' ' || true)
    [ -n "${pids// /}" ] || return 0
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
}

# dovecot_running reports whether DIR's Dovecot master runs.
dovecot_running() {
  [ -s "$dir/dovecot.pid" ] && kill -0 "$(cat "$dir/dovecot.pid")" 2>/dev/null
}

# launch starts Dovecot again with DIR's own configuration (same ports), as
# start.sh's launch does, and waits up to 10 s for the greeting.
launch() {
  rm -rf "$dir/run" # a stale socket there makes the auth process retry for 5 s
  dovecot -c "$dir/dovecot.conf" </dev/null >/dev/null 2>>"$dir/dovecot.stderr" || return 1
  local i
  for ((i = 0; i < 100; i++)); do
    if [ -s "$dir/run/master.pid" ] && greets "$imap_port"; then
      cp "$dir/run/master.pid" "$dir/dovecot.pid"
      return 0
    fi
    sleep 0.1
  done
  return 1
}

cleanup() {
  touch "$work/stop"
  if [ -n "$driver" ] && kill -0 "$driver" 2>/dev/null; then kill "$driver" 2>/dev/null || true; wait "$driver" 2>/dev/null || true; fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if ! dovecot_running; then
    log "Dovecot is not running: starting it again for the next steps"
    launch || log "could not start Dovecot again; see $dir/dovecot.log"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -f "$dir/env" ] || [ ! -f "$dir/dovecot.conf" ]; then
  fail "$dir has no env or dovecot.conf: start it with scripts/dovecot/start.sh"
fi
dovecot_running || fail "no Dovecot runs for $dir"
set -a
# shellcheck source=/dev/null
. "$dir/env"
set +a
imap_host=${DOVECOT_IMAP_ADDR%:*}; imap_port=${DOVECOT_IMAP_ADDR##*:}; imaps_port=${DOVECOT_IMAPS_ADDR##*:}
if [ -z "$bin" ]; then bin="$work/email-mcp"; go build -o "$bin" ./cmd/email-mcp; fi
user=restart-$RANDOM$RANDOM@${DOVECOT_TEST_DOMAIN}

# Seed the user's INBOX over IMAPS (UIDs 1..20).
python3 - "$imap_host" "$imaps_port" "$user" "$DOVECOT_TEST_PASSWORD" "$DOVECOT_CA_FILE" <<'PY'
import imaplib, ssl, sys, time
host, port, user, pw, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
m = imaplib.IMAP4_SSL(host, port, ssl_context=ssl.create_default_context(cafile=ca))
m.login(user, pw)
for i in range(20):
    m.append("INBOX", None, imaplib.Time2Internaldate(time.time()),
             f"From: s{i}@example.test\r\nTo: {user}\r\nSubject: restart {i}\r\nMessage-ID: <restart-{i}@example.test>\r\n\r\nBody {i}\r\n".encode())
m.logout()
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
key=restart-key-$RANDOM$RANDOM$RANDOM
env -i PATH="$PATH" HOME="$work" IMAP_HOST="$imap_host" IMAP_PORT="$imaps_port" IMAP_USER="$user" \
  IMAP_PASSWORD="$DOVECOT_TEST_PASSWORD" TLS_CA_FILE="$DOVECOT_CA_FILE" MCP_READ_ONLY=true MCP_TOOLSETS=mail \
  MCP_API_KEY="$key" MCP_PORT="$port" RATE_LIMIT_PER_MINUTE=0 "$bin" serve >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do curl -sf --noproxy '*' "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf --noproxy '*' "http://127.0.0.1:$port/ready" | grep -q '"imap":"ok"' || fail "/ready before the restart"

# The load: every call is logged as a JSON line with its start, end and
# outcome (ok, an error code, HTTP_nnn, HUNG or a transport error).
# The driver also stops on its own after LIMIT seconds.
limit=$((BEFORE + DOWN + AFTER + HANG_LIMIT + 30))
python3 - "$port" "$key" "$WORKERS" "$HANG_LIMIT" "$work/stop" "$work/calls" "$limit" <<'PY' &
import json, os, random, sys, threading, time, urllib.request, urllib.error
port, key, workers, hang, stopfile, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
end = time.time() + float(sys.argv[7])
url = f"http://127.0.0.1:{port}/mcp/call"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
lock = threading.Lock()
f = open(out, "w")
def call(rng):
    name, args = rng.choice([("list_folders", {"include_counts": True}), ("search_emails", {"subject": "restart", "limit": 5}),
                             ("read_email", {"uid": rng.randint(1, 20)})])
    body = json.dumps({"method": "tools/call", "params": {"name": name, "arguments": args}}).encode()
    req = urllib.request.Request(url, body, {"X-API-Key": key, "Content-Type": "application/json"})
    start = time.time()
    try:
        with opener.open(req, timeout=hang) as r:
            res = json.load(r)
        outcome = res["structuredContent"]["error"]["code"] if res.get("isError") else "ok"
    except urllib.error.HTTPError as e:
        outcome = f"HTTP_{e.code}"
    except TimeoutError:
        outcome = "HUNG"
    except Exception as e:
        outcome = "TRANSPORT_" + type(e).__name__
    return {"tool": name, "start": start, "end": time.time(), "outcome": outcome}
def worker(w):
    rng = random.Random(w)
    while not os.path.exists(stopfile) and time.time() < end:
        rec = call(rng)
        with lock:
            f.write(json.dumps(rec) + "\n")
        if rec["outcome"] != "ok":
            time.sleep(0.05)  # as a client that retries
ts = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
[t.start() for t in ts]
[t.join() for t in ts]
f.close()
PY
driver=$!

sleep "$BEFORE"
old=$(cat "$dir/dovecot.pid")
date +%s.%N >"$work/down"
"$here/stop.sh" "$dir" >/dev/null
end_session "$old"
log "Dovecot stopped (pid $old, its connections cut); down for ${DOWN}s"
sleep "$DOWN"
launch || fail "Dovecot did not start again on 127.0.0.1:$imap_port"
date +%s.%N >"$work/up"
new=$(cat "$dir/dovecot.pid")
[ "$new" != "$old" ] || fail "the Dovecot pid did not change ($old): it was not restarted"
log "Dovecot started again (pid $new) on the same ports"
sleep "$AFTER"
touch "$work/stop"
wait "$driver" || fail "the load driver failed"

# The binary is still the same process and healthy.
kill -0 "$pid" 2>/dev/null || fail "email-mcp exited during the restart"
curl -sf --noproxy '*' "http://127.0.0.1:$port/health" | grep -q '"status":"ok"' || fail "/health after the restart"
curl -sf --noproxy '*' "http://127.0.0.1:$port/ready" | grep -q '"imap":"ok"' || fail "/ready after the restart"

python3 - "$work/calls" "$(cat "$work/down")" "$(cat "$work/up")" "$RECOVER_LIMIT" "$HANG_LIMIT" <<'PY' || fail "the calls around the restart"
import collections, json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
down, up, limit, hang = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
by = collections.Counter(c["outcome"] for c in calls)
typed = {"ok", "CONNECTION_FAILED", "CONNECTION_TIMEOUT"}
bad = {k: v for k, v in by.items() if k not in typed}
hung = sum(1 for c in calls if c["outcome"] == "HUNG" or c["end"] - c["start"] > hang)
slowest = max((c["end"] - c["start"] for c in calls), default=0)
failed_during = sum(1 for c in calls if c["outcome"] != "ok" and down <= c["end"] <= up + 1)
ok_after = sorted(c["end"] for c in calls if c["outcome"] == "ok" and c["start"] >= up)
recovered = ok_after[0] - up if ok_after else None
print(f"FAULTS: test=fault-restart injected=1 (Dovecot stopped {up - down:.1f}s) calls={len(calls)} hung={hung} lost=0 "
      f"failed_while_down={failed_during} recovered_after={recovered if recovered is None else round(recovered, 2)}s "
      f"slowest={slowest:.2f}s outcomes: " + " ".join(f"{k}={v}" for k, v in sorted(by.items())))
errors = []
if bad: errors.append(f"untyped or unexpected outcomes {bad}")
if hung: errors.append(f"{hung} calls hung")
if failed_during == 0: errors.append("no call failed while Dovecot was down: the restart was not seen")
if recovered is None or recovered > limit: errors.append(f"no call succeeded within {limit}s after Dovecot was back")
if sum(1 for c in calls if c["outcome"] == "ok" and c["start"] < down) == 0: errors.append("no call succeeded before the stop")
for e in errors: print("fault-restart:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY

kill -TERM "$pid"; rc=0; wait "$pid" || rc=$?; pid=""
[ "$rc" = 0 ] || fail "serve exit after SIGTERM = $rc"
echo "fault-restart: OK (Dovecot restarted on the same ports under load; every call answered; the binary stayed up)"
