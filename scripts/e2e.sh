#!/usr/bin/env bash
# End to end with real MCP clients: the built binary driven by the official
# TypeScript SDK client over Streamable HTTP, legacy SSE and stdio (every
# tool, errors, progress, cancellation, 401), the MCP conformance suite, the
# MCP Inspector CLI and the MCPB bundle, first on the embedded sandbox, then
# (given a Dovecot started by scripts/dovecot/start.sh) on a real Dovecot.
# Loopback only; every server this script starts is stopped by its PID on
# exit; every wait is bounded.
#
# usage: scripts/e2e.sh [DOVECOT_DIR]      (or DOVECOT_DIR in the environment)
#   E2E_BIN=path   use this binary instead of building one
#   E2E_KEEP=1     keep the work folder (logs, results) and print where it is
#
# Needs go, node >= 20, npm, curl, python3. Prints PASS/FAIL per check and
# ends with "e2e: N passed, M failed"; exit status 1 when anything failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dovecot_dir=${1:-${DOVECOT_DIR:-}}
work=$(mktemp -d /tmp/emcp-e2e.XXXXXX)
pids=()

cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${E2E_KEEP:-}" = 1 ]; then echo "e2e: work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
record() { # record NAME RC
  if [ "$2" = 0 ]; then
    echo "PASS $1"
    passed=$((passed + 1))
  else
    echo "FAIL $1"
    failed=$((failed + 1))
  fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
random_hex() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }
section() { echo; echo "=== e2e: $* (at ${SECONDS}s)"; }

# --- build and install -----------------------------------------------------
section "build the binary, install the clients (npm ci)"
# npm_ci DIR: npm ci, unless node_modules was installed from this very
# lockfile by an earlier run (a stamp in node_modules; a fresh clone has none).
npm_ci() {
  local dir=$1 sum
  sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$dir/node_modules/.e2e-lock-sha256" 2>/dev/null)" = "$sum" ]; then
    echo "$dir: node_modules matches package-lock.json"
    return 0
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) && echo "$sum" >"$dir/node_modules/.e2e-lock-sha256"
}
npm_ci e2e >"$work/npm-e2e.log" 2>&1 &
npm1=$!
pids+=("$npm1")
npm_ci e2e/conformance >"$work/npm-conformance.log" 2>&1 &
npm2=$!
pids+=("$npm2")
bin=${E2E_BIN:-}
if [ -z "$bin" ]; then
  bin="$work/email-mcp"
  go build -o "$bin" ./cmd/email-mcp
fi
rc=0; wait "$npm1" || rc=$?
[ "$rc" = 0 ] || { cat "$work/npm-e2e.log"; echo "e2e: npm ci in e2e/ failed" >&2; exit 1; }
rc=0; wait "$npm2" || rc=$?
[ "$rc" = 0 ] || { cat "$work/npm-conformance.log"; echo "e2e: npm ci in e2e/conformance/ failed" >&2; exit 1; }
node22="$root/e2e/conformance/node_modules/.bin/node"
echo "node $(node --version) (SDK tests), $("$node22" --version) (conformance suite)"

# start_server NAME ENVFILE PORT: `email-mcp serve` with only that env file,
# its stderr in $work/NAME.log; waits for /health.
start_server() {
  local name=$1 envfile=$2 port=$3 pid
  env -i PATH="$PATH" HOME="$work" "$bin" serve --env-file "$envfile" >"$work/$name.out" 2>"$work/$name.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 150); do
    if curl -sf --noproxy '*' --max-time 2 "http://127.0.0.1:$port/health" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "e2e: server $name did not come up; its log:" >&2
  cat "$work/$name.log" >&2
  return 1
}

# start_helper NAME WORD CMD...: a Node helper that prints "WORD listening
# ADDR" when ready; sets helper_addr.
start_helper() {
  local name=$1 word=$2 pid
  shift 2
  "$@" >"$work/$name.out" 2>"$work/$name.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do
    helper_addr=$(sed -n "s/^$word listening //p" "$work/$name.out")
    if [ -n "$helper_addr" ]; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "e2e: $name did not start:" >&2
  cat "$work/$name.log" >&2
  return 1
}

# run_sdk BACKEND: sdk.test.mjs over http, sse and stdio at once, each with
# its own server (its own sandbox or Dovecot user), then their reports in order.
# Uses the variables <transport>_url, <transport>_log, <transport>_base,
# stdio_env, self_<transport>, key.
run_sdk() {
  local backend=$1 t rc
  local -A pid_of=()
  for t in http sse stdio; do
    local url_var="${t}_url" log_var="${t}_log" base_var="${t}_base" self_var="self_${t}"
    E2E_TRANSPORT=$t E2E_BACKEND=$backend E2E_URL=${!url_var:-} E2E_API_KEY=$key E2E_SERVER_LOG=${!log_var:-} \
      E2E_BIN=$bin E2E_STDIO_ENV_FILE=$stdio_env E2E_BASE_DIR=${!base_var} E2E_SELF_ADDRESS=${!self_var} \
      timeout 240 node --test --test-reporter=spec e2e/sdk.test.mjs >"$work/sdk-$backend-$t.txt" 2>&1 &
    pid_of[$t]=$!
  done
  for t in http sse stdio; do
    rc=0
    wait "${pid_of[$t]}" || rc=$?
    echo "--- SDK client over $t on $backend"
    cat "$work/sdk-$backend-$t.txt"
    if [ "$rc" != 0 ] && [ "$t" != stdio ]; then
      local log_var="${t}_log"
      echo "--- server log (last 40 lines)"
      tail -n 40 "${!log_var}"
    fi
    record "sdk $t $backend" "$rc"
  done
}

key=$(random_hex)
# Per-transport settings of the servers under test, set by the backend
# sections (printf -v) and read by run_sdk (${!name}).
# shellcheck disable=SC2034
http_url='' sse_url='' http_log='' sse_log='' http_base='' sse_base='' self_http='' self_sse=''

# --- MCPB bundle -------------------------------------------------------------
section "MCPB bundle: validate, pack, start it as a bundle host does"
rc=0
{
  e2e/node_modules/.bin/mcpb validate dist/mcpb/manifest.json &&
    BIN="$bin" dist/mcpb/build.sh "$work/email-mcp.mcpb" &&
    e2e/node_modules/.bin/mcpb unpack "$work/email-mcp.mcpb" "$work/mcpb-unpacked" &&
    mkdir -p "$work/mcpb-home" &&
    E2E_MCPB_DIR="$work/mcpb-unpacked" E2E_TMP="$work/mcpb-home" timeout 120 node --test --test-reporter=spec e2e/mcpb.test.mjs
} >"$work/mcpb.txt" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then
  sed -n '/validation passes\|^Output:\|✔/p' "$work/mcpb.txt"
else
  cat "$work/mcpb.txt"
fi
record "mcpb bundle" "$rc"

# --- the official Go SDK, protocol revision 2026-07-28 --------------------------
section "Go SDK (modelcontextprotocol/go-sdk): server/discover on 2026-07-28, tools/list = golden, the inbox loop; 2025-11-25 too"
rc=0
(cd e2e/gosdk && E2E_BIN="$bin" timeout 300 go test -count=1 -v ./...) >"$work/gosdk.txt" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then grep -E '^(--- |ok)' "$work/gosdk.txt"; else cat "$work/gosdk.txt"; fi
record "go sdk sandbox" "$rc"

# --- the web inbox in a real browser ------------------------------------------
section "web inbox (/ui) in headless Chromium (chromedp): sign-in, live mail, code, attachment, delete; refusals"
rc=0
(cd e2e/browser && E2E_BIN="$bin" E2E_SHOTS="$work/ui-shots" timeout 300 go test -count=1 -v ./...) >"$work/browser.txt" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then grep -E '^(--- |ok|screenshot:)' "$work/browser.txt"; else cat "$work/browser.txt"; fi
record "web inbox (browser)" "$rc"

# --- OpenAPI: /openapi.json through a real validator -----------------------------
section "OpenAPI (pb33f/libopenapi-validator): /openapi.json is valid 3.1, lists the golden's tools, examples and answers valid by it"
rc=0
(cd e2e/openapi && E2E_BIN="$bin" timeout 600 go test -count=1 -v ./...) >"$work/openapi.txt" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then grep -E '^(--- |ok)' "$work/openapi.txt"; else cat "$work/openapi.txt"; fi
record "openapi" "$rc"

# --- the sandbox -------------------------------------------------------------
section "sandbox: the SDK client over Streamable HTTP, SSE and stdio"
for t in http sse; do
  port=$(free_port)
  base="$work/sandbox-$t-base"
  mkdir -p "$base"
  umask 077
  printf '%s\n' "MCP_API_KEY=$key" "MCP_PORT=$port" "DEV_SMTP_ADDR=127.0.0.1:$(free_port)" \
    "DEV_IMAP_ADDR=127.0.0.1:$(free_port)" "RATE_LIMIT_PER_MINUTE=0" "EMAIL_BASE_DIR=$base" >"$work/sandbox-$t.env"
  umask 022
  start_server "sandbox-$t" "$work/sandbox-$t.env" "$port"
  printf -v "${t}_url" '%s' "http://127.0.0.1:$port"
  printf -v "${t}_log" '%s' "$work/sandbox-$t.log"
  printf -v "${t}_base" '%s' "$base"
  printf -v "self_${t}" '%s' "e2e@example.test"
done
stdio_base="$work/sandbox-stdio-base"
mkdir -p "$stdio_base"
stdio_env="$work/sandbox-stdio.env"
printf '%s\n' "DEV_SMTP_ADDR=127.0.0.1:$(free_port)" "DEV_IMAP_ADDR=127.0.0.1:$(free_port)" "EMAIL_BASE_DIR=$stdio_base" >"$stdio_env"
self_stdio=e2e@example.test
run_sdk sandbox

# --- the call limit -------------------------------------------------------------
# Servers of their own (the limit is per key): "default" runs with the
# default configuration (no RATE_LIMIT_PER_MINUTE: 30 successive calls and 8
# workers x 50 must all succeed), "tight" with RATE_LIMIT_PER_MINUTE=1 (the
# 11th call is a RATE_LIMITED tool result). e2e/limits.test.mjs.
section "call limit: the SDK client with the default configuration, and over a tight limit"
for mode in default tight; do
  for t in http sse; do
    port=$(free_port)
    umask 077
    printf '%s\n' "MCP_API_KEY=$key" "MCP_PORT=$port" "DEV_SMTP_ADDR=127.0.0.1:$(free_port)" \
      "DEV_IMAP_ADDR=127.0.0.1:$(free_port)" >"$work/limits-$mode-$t.env"
    if [ "$mode" = tight ]; then echo "RATE_LIMIT_PER_MINUTE=1" >>"$work/limits-$mode-$t.env"; fi
    umask 022
    rc=0
    if start_server "limits-$mode-$t" "$work/limits-$mode-$t.env" "$port"; then
      E2E_TRANSPORT=$t E2E_LIMIT=$mode E2E_URL="http://127.0.0.1:$port" E2E_API_KEY=$key \
        timeout 240 node --test --test-reporter=spec e2e/limits.test.mjs >"$work/limits-$mode-$t.txt" 2>&1 || rc=$?
      cat "$work/limits-$mode-$t.txt"
      [ "$rc" = 0 ] || tail -n 20 "$work/limits-$mode-$t.log"
      kill "${pids[-1]}" 2>/dev/null || true # this server (start_server's); cleanup skips it
    else
      rc=1
    fi
    record "call limit $mode $t" "$rc"
  done
done

# --- conformance suite ---------------------------------------------------------
section "MCP conformance suite (server scenarios) on /mcp, through the key-adding proxy"
rc=0
if start_helper key-proxy key-proxy env MCP_API_KEY="$key" node e2e/key-proxy.mjs --target "$http_url"; then
  (cd "$work" && timeout 300 "$node22" "$root/e2e/conformance/node_modules/.bin/conformance" server \
    --url "$helper_addr/mcp" --expected-failures "$root/e2e/conformance-baseline.yml" -o "$work/conformance") \
    >"$work/conformance.txt" 2>&1 || rc=$?
  # The summary, without colours; its total line is reworded so that it is
  # not read as this run's own count.
  sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^Total: \(.*\)$/conformance scenarios, all checks counted: \1 (expected failures are in the baseline)/' \
    "$work/conformance.txt" | sed -n '/=== SUMMARY ===/,$p'
else
  rc=1
fi
record "conformance suite" "$rc"

# --- MCP Inspector CLI ---------------------------------------------------------
section "MCP Inspector CLI (@modelcontextprotocol/inspector-cli): tools/list and tools/call"
# inspector-cli 1.0.3 checks for ../package.json against the working
# directory but imports it relative to its own file: run it from a folder
# whose parent has a package.json (e2e/conformance), or it fails with
# "Cannot find module .../@modelcontextprotocol/package.json".
inspector() { (cd e2e/conformance && timeout 60 ../node_modules/.bin/mcp-inspector-cli --cli "$@"); }
check_json() { # check_json FILE JS-EXPRESSION-ON-d
  node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); if(!('"$2"')) { console.error("unexpected:", JSON.stringify(d).slice(0,400)); process.exit(1); }' "$1"
}
# The tool names of the golden tools/list, as a JS array literal.
golden_tools=$(node -p 'JSON.stringify(require("./tools/testdata/tools_list.golden.json").tools.map((t) => t.name).sort())')
same_tools="JSON.stringify(d.tools.map((t) => t.name).sort()) === JSON.stringify($golden_tools)"
rc=0
{
  inspector "$http_url/mcp" --transport http --header "X-API-Key: $key" --method tools/list >"$work/insp-list.json" &&
    check_json "$work/insp-list.json" "$same_tools" &&
    echo "inspector: tools/list over http: the golden's tools" &&
    inspector "$http_url/mcp" --transport http --header "X-API-Key: $key" --method tools/call \
      --tool-name list_folders --tool-arg include_counts=true >"$work/insp-call.json" &&
    check_json "$work/insp-call.json" '!d.isError && d.structuredContent.folders.some(f => f.name === "INBOX")' &&
    echo "inspector: tools/call list_folders over http: ok" &&
    inspector "$sse_url/sse" --transport sse --header "Authorization: Bearer $key" --method tools/call \
      --tool-name create_inbox --tool-arg label=inspector >"$work/insp-sse.json" &&
    check_json "$work/insp-sse.json" '!d.isError && d.structuredContent.address.includes("@")' &&
    echo "inspector: tools/call create_inbox over sse: ok" &&
    inspector "$bin" stdio --env-file "$stdio_env" --method tools/list >"$work/insp-stdio.json" &&
    check_json "$work/insp-stdio.json" "$same_tools" &&
    echo "inspector: tools/list over stdio: the golden's tools"
} 2>"$work/inspector.err" || rc=$?
[ "$rc" = 0 ] || grep -v '^\s*$\|deprecated\|Upgrade:\|security fixes' "$work/inspector.err" || true
record "inspector cli" "$rc"

# --- Dovecot -------------------------------------------------------------------
if [ -n "$dovecot_dir" ]; then
  section "Dovecot ($dovecot_dir): the SDK client over Streamable HTTP, SSE and stdio"
  [ -f "$dovecot_dir/env" ] || { echo "e2e: $dovecot_dir/env missing: start Dovecot with scripts/dovecot/start.sh DIR" >&2; exit 1; }
  set -a
  # shellcheck source=/dev/null
  . "$dovecot_dir/env"
  set +a
  # The test Dovecot has no submission service: the relay takes SMTP (with
  # AUTH) and delivers through Dovecot's LMTP, as an MTA would.
  start_helper smtp-relay smtp-relay env RELAY_PASSWORD="$DOVECOT_TEST_PASSWORD" node e2e/smtp-relay.mjs --lmtp "$DOVECOT_LMTP_ADDR"
  relay_port=${helper_addr##*:}
  dovecot_env() { # dovecot_env FILE USER BASE [PORT]: each transport has its own fresh mailbox user
    umask 077
    printf '%s\n' "IMAP_HOST=${DOVECOT_IMAPS_ADDR%:*}" "IMAP_PORT=${DOVECOT_IMAPS_ADDR##*:}" "IMAP_SSL=true" \
      "TLS_CA_FILE=$DOVECOT_CA_FILE" "IMAP_USER=$2" "IMAP_PASSWORD=$DOVECOT_TEST_PASSWORD" "INBOX_ADDRESS=$2" \
      "SMTP_HOST=127.0.0.1" "SMTP_PORT=$relay_port" "SMTP_STARTTLS=false" "EMAIL_BASE_DIR=$3" \
      "RATE_LIMIT_PER_MINUTE=0" >"$1"
    if [ -n "${4:-}" ]; then printf '%s\n' "MCP_API_KEY=$key" "MCP_PORT=$4" >>"$1"; fi
    umask 022
  }
  run_id=$(random_hex | cut -c1-8)
  for t in http sse; do
    port=$(free_port)
    base="$work/dovecot-$t-base"
    user="e2e-$t-$run_id@$DOVECOT_TEST_DOMAIN"
    mkdir -p "$base"
    dovecot_env "$work/dovecot-$t.env" "$user" "$base" "$port"
    start_server "dovecot-$t" "$work/dovecot-$t.env" "$port"
    printf -v "${t}_url" '%s' "http://127.0.0.1:$port"
    printf -v "${t}_log" '%s' "$work/dovecot-$t.log"
    printf -v "${t}_base" '%s' "$base"
    printf -v "self_${t}" '%s' "$user"
  done
  stdio_base="$work/dovecot-stdio-base"
  mkdir -p "$stdio_base"
  self_stdio="e2e-stdio-$run_id@$DOVECOT_TEST_DOMAIN"
  stdio_env="$work/dovecot-stdio.env"
  dovecot_env "$stdio_env" "$self_stdio" "$stdio_base"
  run_sdk dovecot

  section "Dovecot: the Go SDK suite again, each server on a fresh Dovecot user (E2E_DOVECOT_ENV)"
  rc=0
  (cd e2e/gosdk && E2E_BIN="$bin" E2E_DOVECOT_ENV="$DOVECOT_DIR/env" timeout 300 go test -count=1 -v ./...) \
    >"$work/gosdk-dovecot.txt" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then grep -E '^(--- |ok)' "$work/gosdk-dovecot.txt"; else cat "$work/gosdk-dovecot.txt"; fi
  record "go sdk dovecot" "$rc"
else
  section "Dovecot: skipped (no DOVECOT_DIR given)"
fi

echo
echo "e2e: took ${SECONDS}s"
echo "e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
