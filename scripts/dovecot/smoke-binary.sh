#!/usr/bin/env bash
# The built binary against the tier's real Dovecot, as a user runs it:
# `email-mcp check` in every IMAP TLS mode (and its failures), then `serve`
# with a read-only configuration driven with curl: list_folders,
# search_emails, read_email (which must not mark mail read), and the
# mutating tools absent from tools/list. Loopback only; waits are bounded.
#
# usage: scripts/dovecot/smoke-binary.sh DIR [path/to/email-mcp]
#   DIR: a Dovecot started by start.sh (its env file is read)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
dir=${1:?usage: smoke-binary.sh DIR [binary]}
bin=${2:-}
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$bin" ]; then bin="$work/email-mcp"; go build -o "$bin" ./cmd/email-mcp; fi
# shellcheck source=/dev/null
set -a; . "$dir/env"; set +a
fail() { echo "smoke-binary: FAIL: $*" >&2; [ -f "$work/log" ] && tail -40 "$work/log" >&2; exit 1; }

imap_host=${DOVECOT_IMAP_ADDR%:*}; imap_port=${DOVECOT_IMAP_ADDR##*:}; imaps_port=${DOVECOT_IMAPS_ADDR##*:}
user=smoke-$RANDOM@${DOVECOT_TEST_DOMAIN}
base_env=(env -i PATH="$PATH" HOME="$work" IMAP_HOST="$imap_host" IMAP_USER="$user" IMAP_PASSWORD="$DOVECOT_TEST_PASSWORD"
  TLS_CA_FILE="$DOVECOT_CA_FILE" MCP_READ_ONLY=true MCP_TOOLSETS=mail,inbox INBOX_ADDRESS="$user")

# Seed the test user's INBOX over IMAPS (Python stdlib).
python3 - "$imap_host" "$imaps_port" "$user" "$DOVECOT_TEST_PASSWORD" "$DOVECOT_CA_FILE" <<'PY'
import imaplib, ssl, sys, time
host, port, user, pw, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ctx = ssl.create_default_context(cafile=ca)
m = imaplib.IMAP4_SSL(host, port, ssl_context=ctx)
m.login(user, pw)
for i in range(12):
    msg = (f"From: Sender {i} <sender{i}@example.test>\r\nTo: {user}\r\nSubject: Smoke message {i} Grüße\r\n"
           f"Message-ID: <smoke-{i}@example.test>\r\nDate: Tue, 19 Mar 2024 10:{i:02d}:00 +0000\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           f"Body of message {i}: your code is 4242{i:02d}\r\n").encode()
    m.append("INBOX", None, imaplib.Time2Internaldate(time.time()), msg)
m.logout()
PY

# check: implicit TLS, STARTTLS, then the failures a user meets.
"${base_env[@]}" IMAP_PORT="$imaps_port" IMAP_SSL=true "$bin" check >"$work/out" 2>"$work/log" || fail "check over IMAPS: $(cat "$work/out")"
grep -q "Result: OK" "$work/out" || fail "check IMAPS output"
"${base_env[@]}" IMAP_PORT="$imap_port" IMAP_SSL=false IMAP_STARTTLS=true "$bin" check >"$work/out" 2>"$work/log" || fail "check over STARTTLS: $(cat "$work/out")"
set +e
"${base_env[@]}" IMAP_PORT="$imaps_port" IMAP_PASSWORD=wrong-password "$bin" check >"$work/out" 2>"$work/log"; rc=$?
[ "$rc" = 1 ] && grep -q AUTH_FAILED "$work/out" || fail "check with a wrong password: rc=$rc $(cat "$work/out")"
grep -q wrong-password "$work/out" "$work/log" && fail "the password was printed"
env -i PATH="$PATH" HOME="$work" IMAP_HOST="$imap_host" IMAP_USER="$user" IMAP_PASSWORD=x MCP_READ_ONLY=true IMAP_PORT="$imaps_port" "$bin" check >"$work/out" 2>"$work/log"; rc=$?
[ "$rc" = 1 ] && grep -q TLS_FAILED "$work/out" || fail "check without the CA: rc=$rc $(cat "$work/out")"
set -e

# serve (read-only) and drive it with curl.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
key=smoke-key-$RANDOM$RANDOM$RANDOM
"${base_env[@]}" IMAP_PORT="$imaps_port" MCP_API_KEY="$key" MCP_PORT="$port" LOG_LEVEL=debug "$bin" serve >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do curl -sf --noproxy '*' "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
call() { curl -sS --noproxy '*' --max-time 30 -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "$1" "http://127.0.0.1:$port/mcp/call"; }
curl -sf --noproxy '*' "http://127.0.0.1:$port/ready" | grep -q '"imap":"ok"' || fail "/ready"
tools=$(curl -sS --noproxy '*' -H "X-API-Key: $key" "http://127.0.0.1:$port/mcp/tools")
for t in send_email mark_email move_email reply_email; do echo "$tools" | grep -q "\"$t\"" && fail "read-only serve lists $t"; done
search=$(call '{"method":"tools/call","params":{"name":"search_emails","arguments":{"limit":5,"unread":true}}}')
python3 - "$search" <<'PY' || fail "search_emails: $search"
import json, sys
r = json.loads(sys.argv[1])["structuredContent"]
assert r["total"] == 12 and len(r["messages"]) == 5 and r["next_cursor"], r
assert r["messages"][0]["subject"] == "Smoke message 11 Grüße", r["messages"][0]
PY
uid=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["messages"][0]["uid"])' "$search")
read=$(call "{\"method\":\"tools/call\",\"params\":{\"name\":\"read_email\",\"arguments\":{\"uid\":\"$uid\"}}}")
echo "$read" | grep -q 'your code is 424211' || fail "read_email: $read"
again=$(call '{"method":"tools/call","params":{"name":"search_emails","arguments":{"unread":true,"limit":1}}}')
echo "$again" | grep -q '"total":12' || fail "read_email marked the message read: $again"
call '{"method":"tools/call","params":{"name":"search_emails","arguments":{"folder":"No Such Folder"}}}' | grep -q 'FOLDER_NOT_FOUND' || fail "missing folder is not FOLDER_NOT_FOUND"
# A wait pushed by Dovecot's IDLE: wait_for_otp on a +tag inbox, then the
# app's mail is delivered through Dovecot's LMTP.
# The inbox is made first (an id that names no inbox is INBOX_NOT_FOUND),
# and read-only mode has no create_inbox: a writable stdio process over the
# same account makes it, as another replica would; the read-only serve then
# finds its marker. (Its SMTP_HOST is a placeholder: create_inbox sends nothing.)
made=$(python3 - "$bin" "${base_env[@]:2}" IMAP_PORT="$imaps_port" MCP_READ_ONLY=false SMTP_HOST=127.0.0.1 SMTP_PORT=9 SMTP_STARTTLS=false 2>>"$work/stdio.log" <<'PY'
import json, os, subprocess, sys
env = {"PATH": os.environ["PATH"]}
env.update(kv.split("=", 1) for kv in sys.argv[2:])
p = subprocess.Popen([sys.argv[1], "stdio"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def answer(i):
    for line in p.stdout:  # bounded by the process: it ends when stdin closes
        m = json.loads(line)
        if m.get("id") == i:
            return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "create_inbox", "arguments": {"label": "dovetest"}}})
print(answer(2)["result"]["structuredContent"]["address"])
p.stdin.close(); p.wait(timeout=20)
PY
) || fail "create_inbox over stdio: $(tail -8 "$work/stdio.log")"
inbox=$made
case "$inbox" in "${user%@*}+dovetest"*"@${user#*@}") ;; *) fail "create_inbox address $inbox is not a +tag of $user" ;; esac
short=$(call "{\"method\":\"tools/call\",\"params\":{\"name\":\"wait_for_email\",\"arguments\":{\"inbox_id\":\"$inbox\",\"timeout\":0.3}}}")
since=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["error"]["next_since"])' "$short") || fail "short wait: $short"
call "{\"method\":\"tools/call\",\"params\":{\"name\":\"wait_for_otp\",\"arguments\":{\"inbox_id\":\"$inbox\",\"since\":\"$since\",\"timeout\":20}}}" >"$work/otp" &
waiter=$!
python3 - "${DOVECOT_LMTP_ADDR%:*}" "${DOVECOT_LMTP_ADDR##*:}" "$inbox" <<'PY'
import smtplib, sys
host, port, inbox = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# LMTP: how an MTA hands mail to Dovecot; the +tag goes with the recipient.
s = smtplib.LMTP(host, port, local_hostname="localhost", timeout=10)
s.sendmail("app@example.test", [inbox], f"From: App <app@example.test>\r\nTo: {inbox}\r\nSubject: Your sign-in code\r\nMessage-ID: <otp-1@example.test>\r\n\r\nYour one-time code is 861 204.\r\n")
s.quit()
PY
wait "$waiter" || fail "wait_for_otp call failed"
grep -q '"otp":"861204"' "$work/otp" || fail "wait_for_otp on Dovecot: $(cat "$work/otp")"

# A wrong key and a foreign Host are refused (and logged without the key).
code=$(curl -s -o /dev/null -w '%{http_code}' --noproxy '*' -H "X-API-Key: wrong-$key" "http://127.0.0.1:$port/mcp/tools")
[ "$code" = 401 ] || fail "wrong key: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --noproxy '*' -H "X-API-Key: $key" -H "Host: rebound.example" "http://127.0.0.1:$port/mcp/tools")
[ "$code" = 403 ] || fail "foreign Host: HTTP $code"

kill -TERM "$pid"; rc=0; wait "$pid" || rc=$?; pid=""
[ "$rc" = 0 ] || fail "serve exit after SIGTERM = $rc"
# The whole debug log of the run, and what serve printed, hold no secret.
for secret in "$key" "$DOVECOT_TEST_PASSWORD" "$DOVECOT_PASSWORD"; do
  if grep -qF -- "$secret" "$work/log" "$work/out"; then fail "a secret is in the server's output or log"; fi
done
grep -q '"tool call"\|msg="tool call"' "$work/log" || fail "the debug log has no tool calls: the secret check read nothing"
echo "smoke-binary: OK (check: IMAPS, STARTTLS, AUTH_FAILED, TLS_FAILED; serve read-only on Dovecot: search, read without \\Seen, FOLDER_NOT_FOUND, wait_for_otp pushed by IDLE; 401/403; debug log free of key and passwords)"
