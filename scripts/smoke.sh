#!/usr/bin/env bash
# Smoke test of the built binary, as a user runs it: start the embedded
# sandbox with no mail configuration, check every HTTP endpoint, send a mail
# with a plain SMTP client, see it counted by list_folders over /mcp/call and
# over Streamable HTTP, check stdio, then stop with SIGTERM and expect a clean
# exit. Loopback only; every wait is bounded.
#
# usage: scripts/smoke.sh [path/to/email-mcp]
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-}
work=$(mktemp -d)
if [ -z "$bin" ]; then
  bin="$work/email-mcp"
  go build -o "$bin" ./cmd/email-mcp
fi
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
fail() { echo "smoke: FAIL: $*" >&2; echo "--- server log ---" >&2; cat "$work/stderr" >&2 || true; exit 1; }

mcp_port=$(free_port); smtp_port=$(free_port); imap_port=$(free_port)
key="smoke-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
base="http://127.0.0.1:$mcp_port"
curl_() { curl -sS --noproxy '*' --max-time 20 "$@"; }

# 1. Bad configuration: exit 2 and one line per bad variable.
set +e
env -i PATH="$PATH" HOME="$work" IMAP_PORT=abc MCP_TOOLSETS=mail,bogus "$bin" serve --env-file /dev/null >"$work/out" 2>"$work/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad config exited $rc, want 2"
grep -q IMAP_PORT "$work/err" && grep -q MCP_TOOLSETS "$work/err" || fail "bad config output does not name both variables: $(cat "$work/err")"

# 1b. --version and -v work like the version command.
for flag in --version -v version; do
  "$bin" $flag | grep -q '^email-mcp ' || fail "email-mcp $flag does not print the version"
done

# 2. Start the sandbox (no IMAP_HOST) with a fixed key and the default limits.
( cd "$work" && exec env -i PATH="$PATH" HOME="$work" MCP_API_KEY="$key" MCP_PORT="$mcp_port" \
    DEV_SMTP_ADDR="127.0.0.1:$smtp_port" DEV_IMAP_ADDR="127.0.0.1:$imap_port" "$bin" >"$work/stdout" 2>"$work/stderr" ) &
pid=$!
for _ in $(seq 1 100); do
  curl_ -f "$base/health" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "server exited early"
  sleep 0.1
done
curl_ -f "$base/health" | grep -q '"status":"ok"' || fail "/health"
curl_ -f "$base/ready" | grep -q '"status":"ready"' || fail "/ready: $(curl_ "$base/ready")"
grep -q "$base/mcp\|localhost:$mcp_port/mcp" "$work/stdout" || fail "banner does not show the MCP URL"
if grep -q "$key" "$work/stdout" "$work/stderr"; then fail "a configured API key was printed"; fi
# The banner's IMAP login works (a mail client can look in), and the
# sandbox has an attachments workspace of its own, outside the working dir.
python3 - "$work/stdout" <<'PY' || fail "IMAP login with the banner's user and password: $(grep 'Sandbox IMAP' "$work/stdout")"
import imaplib, re, sys
m = re.search(r'Sandbox IMAP +([\d.]+):(\d+) +\(user "([^"]+)", password "([^"]+)"', open(sys.argv[1]).read())
c = imaplib.IMAP4(m.group(1), int(m.group(2)), timeout=10)
c.login(m.group(3), m.group(4))
c.logout()
PY
workspace=$(sed -n 's|^  Attachments  *\(/[^ ]*\)/ .*|\1|p' "$work/stdout")
[ -d "$workspace/uploads" ] || fail "the banner shows no sandbox workspace: $(grep Attachments "$work/stdout")"
case "$workspace" in "$work"/*) fail "the sandbox workspace $workspace is in the working directory";; esac
if grep -q "$(sed -n 's|.*password "\([^"]*\)".*|\1|p' "$work/stdout")" "$work/stderr"; then fail "the sandbox password is in the log"; fi

# 3. Auth edges.
[ "$(curl_ -o /dev/null -w '%{http_code}' "$base/mcp/tools")" = 401 ] || fail "no key: want 401"
[ "$(curl_ -o /dev/null -w '%{http_code}' -H "X-API-Key: wrong" "$base/mcp/tools")" = 401 ] || fail "wrong key: want 401"
[ "$(curl_ -o /dev/null -w '%{http_code}' -H "X-API-Key: $key" -H 'Origin: https://evil.example' "$base/mcp/tools")" = 403 ] || fail "foreign origin: want 403"

# 4. Send a mail with a plain SMTP client, then count it.
python3 - "$smtp_port" <<'PY'
import smtplib, sys
s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), local_hostname="localhost", timeout=10)
s.sendmail("app@example.test", ["agent@example.test"], "From: app@example.test\r\nTo: agent@example.test\r\nSubject: smoke\r\n\r\nYour code is 424242\r\n")
s.quit()
PY
call='{"method":"tools/call","params":{"name":"list_folders","arguments":{"include_counts":true}}}'
out=$(curl_ -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "$call" "$base/mcp/call")
python3 - "$out" <<'PY' || fail "/mcp/call list_folders: $out"
import json, sys
r = json.loads(sys.argv[1])
f = {x["name"]: x for x in r["structuredContent"]["folders"]}
assert not r.get("isError"), r
assert f["INBOX"]["messages"] == 1, f["INBOX"]
assert {x.get("special_use") for x in f.values()} >= {"sent", "drafts", "trash", "junk", "archive"}, f
PY

# 5. Streamable HTTP, raw JSON-RPC as a client sends it.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"1"}}}'
curl_ -f -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d "$init" "$base/mcp" | grep -q '"serverInfo"' || fail "/mcp initialize"
lst='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
curl_ -f -H "X-API-Key: $key" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d "$lst" "$base/mcp" | grep -q '"list_folders"' || fail "/mcp tools/list"

# 6. Test inbox: create_inbox, a wait blocked in the server, an app's mail
#    through SMTP, the code comes back.
mcall() { curl_ -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "$1" "$base/mcp/call"; }
created=$(mcall '{"method":"tools/call","params":{"name":"create_inbox","arguments":{"label":"smoke"}}}')
inbox=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["inbox_id"])' "$created") || fail "create_inbox: $created"
addr=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["address"])' "$created")
short=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"wait_for_email\",\"arguments\":{\"inbox_id\":\"$inbox\",\"timeout\":0.2}}}")
since=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["error"]["next_since"])' "$short") || fail "short wait: $short"
t0=$(python3 -c 'import time; print(time.time() - 2)') # before the mail below, for step 6a
mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"wait_for_otp\",\"arguments\":{\"inbox_id\":\"$inbox\",\"since\":\"$since\",\"timeout\":15}}}" >"$work/otp" &
waiter=$!
python3 - "$smtp_port" "$addr" <<'PY'
import smtplib, sys
s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), local_hostname="localhost", timeout=10)
s.sendmail("app@example.test", [sys.argv[2]], f"From: App <app@example.test>\r\nTo: {sys.argv[2]}\r\nSubject: Confirm your account\r\n\r\nYour verification code is 735 209.\r\n")
s.quit()
PY
wait "$waiter" || fail "wait_for_otp call failed"
grep -q '"otp":"735209"' "$work/otp" || fail "wait_for_otp: $(cat "$work/otp")"

# 6a. An unknown inbox is INBOX_NOT_FOUND, never an empty one (and a wait
#     on it does not wait); numbers as strings are taken; has_more is there.
code_of() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["structuredContent"]["error"]["code"] if r.get("isError") else "ok")' "$1"; }
r=$(mcall '{"method":"tools/call","params":{"name":"get_latest","arguments":{"inbox_id":"nobody-0badcafe"}}}')
[ "$(code_of "$r")" = INBOX_NOT_FOUND ] || fail "get_latest of an unknown inbox: $r"
r=$(mcall '{"method":"tools/call","params":{"name":"wait_for_otp","arguments":{"inbox_id":"nobody-0badcafe","timeout":15}}}')
[ "$(code_of "$r")" = INBOX_NOT_FOUND ] || fail "wait_for_otp on an unknown inbox: $r"
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"list_messages\",\"arguments\":{\"inbox_id\":\"$inbox\",\"limit\":\"1\"}}}")
echo "$r" | grep -q '"has_more":false' || fail "list_messages with limit \"1\": $r"
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"list_messages\",\"arguments\":{\"inbox_id\":\"$inbox\",\"sender\":\"a\\u0000b\"}}}")
[ "$(code_of "$r")" = INVALID_ARGUMENT ] || fail "list_messages with a NUL in sender: $r"
gone=$(mcall '{"method":"tools/call","params":{"name":"create_inbox","arguments":{"label":"gone"}}}')
gone=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["inbox_id"])' "$gone")
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"delete_inbox\",\"arguments\":{\"inbox_id\":\"$gone\"}}}")
[ "$(code_of "$r")" = ok ] || fail "delete_inbox: $r"
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"delete_inbox\",\"arguments\":{\"inbox_id\":\"$gone\"}}}")
[ "$(code_of "$r")" = INBOX_NOT_FOUND ] || fail "delete_inbox a second time: $r"

# 6c. The attachment examples, verbatim, on a first run: a file put into
#     the sandbox workspace's uploads/ is sent, and download_attachment
#     saves it back into downloads/.
printf '%%PDF-1.4\n%% smoke report\n' >"$workspace/uploads/report.pdf"
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"send_email_with_attachments\",\"arguments\":{\"to\":[\"$addr\"],\"subject\":\"Monthly report\",\"body\":\"Please find the report attached.\",\"attachment_paths\":[\"attachments/email/uploads/report.pdf\"]}}}")
echo "$r" | grep -q '"success":true' || fail "send_email_with_attachments (README example): $r"
r=$(mcall '{"method":"tools/call","params":{"name":"search_emails","arguments":{"subject":"Monthly report","limit":1}}}')
uid=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["messages"][0]["uid"])' "$r") || fail "search for the report: $r"
r=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"download_attachment\",\"arguments\":{\"uid\":$uid,\"attachment_index\":0}}}")
path=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["structuredContent"]["file_path"])' "$r") || fail "download_attachment: $r"
cmp -s "$workspace/uploads/report.pdf" "$(dirname "$workspace")/../$path" || fail "downloaded $path differs from the upload"
# 6e. Every form of since through the binary, on the mail of step 6: each
#     names a moment before it, so each wait returns its code. Then
#     mailsocket's "try the loop without real email" recipe, verbatim:
#     get_latest (or since=0 when the inbox is empty), send_test_code,
#     wait_for_otp with since = that id. A time far ahead is refused.
python3 - "$base" "$key" "$inbox" "$t0" <<'PY' || fail "since forms (above)"
import datetime, json, sys, time, urllib.error, urllib.request
base, key, inbox, t0 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def call(name, **args):
    body = json.dumps({"method": "tools/call", "params": {"name": name, "arguments": args}}).encode()
    req = urllib.request.Request(base + "/mcp/call", body, {"X-API-Key": key, "Content-Type": "application/json"})
    for _ in range(20):  # the per-key rate limit: wait as Retry-After says
        try:
            return json.load(opener.open(req, timeout=20))["structuredContent"]
        except urllib.error.HTTPError as e:
            if e.code != 429:
                sys.exit(f"{name} {args}: HTTP {e.code}: {e.read()[:300]}")
            time.sleep(float(e.headers.get("Retry-After", "1")))
    sys.exit(f"{name} {args}: still rate limited")
utc = datetime.datetime.fromtimestamp(t0, datetime.timezone.utc)
forms = [0, "0", int(t0), str(int(t0)), int(t0 * 1000), str(int(t0 * 1000)),
         utc.strftime("%Y-%m-%dT%H:%M:%SZ"), utc.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
         utc.strftime("%Y-%m-%dT%H:%M:%S"), utc.strftime("%Y-%m-%d")]
for since in forms:
    got = call("wait_for_otp", inbox_id=inbox, since=since, timeout=5)
    if got.get("otp") != "735209":
        sys.exit(f"wait_for_otp since={since!r}: {got}")
bad = call("wait_for_otp", inbox_id=inbox, since=str(int((t0 + 3 * 86400) * 1000)), timeout=1)
if bad.get("error", {}).get("code") != "INVALID_ARGUMENT" or bad["error"]["retryable"]:
    sys.exit(f"since far in the future: {bad}")
fresh = call("create_inbox", label="recipe")["inbox_id"]
for step in range(2):  # an empty inbox (since=0), then one with mail (its id)
    latest = call("get_latest", inbox_id=fresh)["message"]
    since = latest["id"] if latest else 0
    if (latest is None) != (step == 0):
        sys.exit(f"get_latest step {step}: {latest}")
    call("send_test_code", inbox_id=fresh)
    got = call("wait_for_otp", inbox_id=fresh, since=since, timeout=10)
    if not got.get("otp") or (latest and got["id"] == latest["id"]):
        sys.exit(f"recipe step {step}: wait_for_otp since={since!r}: {got}")
time.sleep(6)  # give the key's token bucket back to the steps below
PY

# 6b. Guardrails: a send is audited (one line, no subject or address), and
#     a Host that is not allowed is refused (DNS rebinding).
sent=$(mcall '{"method":"tools/call","params":{"name":"send_email","arguments":{"to":"qa@example.test","subject":"Audit me 7731","body":"secret body 7731"}}}')
echo "$sent" | grep -q '"success":true' || fail "send_email: $sent"
grep 'msg=audit' "$work/stderr" | grep -q 'tool=send_email.*recipients=1.*result=ok' || fail "no audit line for send_email"
if grep 'msg=audit' "$work/stderr" | grep -q '7731\|qa@example.test'; then fail "the audit line shows the subject, body or address"; fi
[ "$(curl_ -o /dev/null -w '%{http_code}' -H "X-API-Key: $key" -H 'Host: rebound.example' "$base/mcp/tools")" = 403 ] || fail "foreign Host: want 403"

# 6d. A mail cannot choose how many people a reply goes to: a Reply-To of
#     300 addresses (and a To of 300 more) is refused whole with
#     INVALID_ARGUMENT naming the count, and nothing is sent.
python3 - "$smtp_port" <<'PY'
import smtplib, sys
many = lambda p, n: ",\r\n ".join(f"{p}{i}@victims.example" for i in range(n))
s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), local_hostname="localhost", timeout=10)
s.sendmail("mallory@evil.example", ["agent@sandbox.localhost"],
  "From: Mallory <mallory@evil.example>\r\nReply-To: " + many("r", 300) + "\r\nTo: agent@sandbox.localhost,\r\n " + many("t", 300) +
  "\r\nCc: c@victims.example\r\nSubject: Fan-out 9931\r\nMessage-ID: <fanout-9931@evil.example>\r\n\r\nPlease reply.\r\n")
s.quit()
PY
found=$(mcall '{"method":"tools/call","params":{"name":"search_emails","arguments":{"subject":"Fan-out 9931"}}}')
uid=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1])["structuredContent"]; assert r["total"]==1, r; print(r["messages"][0]["uid"])' "$found") || fail "search for the 300-address mail: $found"
for all in false true; do
  want=300; [ "$all" = true ] && want=601
  rep=$(mcall "{\"method\":\"tools/call\",\"params\":{\"name\":\"reply_email\",\"arguments\":{\"uid\":$uid,\"body\":\"ok\",\"reply_all\":$all}}}")
  python3 - "$rep" "$want" <<'PY' || fail "reply_email (reply_all=$all) to a 300-address Reply-To: $(echo "$rep" | cut -c1-300)"
import json, sys
r = json.loads(sys.argv[1])
e = r["structuredContent"]["error"]
assert r.get("isError") and e["code"] == "INVALID_ARGUMENT", r
assert e["recipients"] == int(sys.argv[2]) and e["max_recipients"] == 100 and sys.argv[2] + " recipients" in e["message"], e
PY
done
after=$(mcall '{"method":"tools/call","params":{"name":"search_emails","arguments":{"subject":"Fan-out 9931"}}}')
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["structuredContent"]; assert r["total"]==1, r' "$after" || fail "a refused reply was delivered: $after"

# 7. Legacy SSE: the endpoint event arrives.
curl_ -N --max-time 2 -H "X-API-Key: $key" "$base/sse" >"$work/sse" 2>/dev/null || true
grep -q 'event: endpoint' "$work/sse" || fail "/sse endpoint event: $(cat "$work/sse")"

# 7b. /docs and /openapi.json without a key; two curl examples copied from
#     the page run verbatim with the key in MCP_API_KEY.
curl_ -f -D "$work/docs.hdr" -o "$work/docs.html" "$base/docs" || fail "/docs without a key"
grep -qi "^content-security-policy: default-src 'none'" "$work/docs.hdr" || fail "/docs CSP: $(cat "$work/docs.hdr")"
curl_ -f "$base/openapi.json" | grep -q '"openapi":"3.1.0"' || fail "/openapi.json without a key"
for tool in create_inbox send_email; do
  python3 - "$work/docs.html" "$tool" >"$work/curl-$tool.sh" <<'PY' || fail "/docs has no curl example for $tool"
import html, re, sys
m = re.search(r'<pre class="curl" id="curl-%s">(.*?)</pre>' % sys.argv[2], open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)))
PY
  out=$(MCP_API_KEY="$key" bash "$work/curl-$tool.sh") || fail "the /docs curl example of $tool: exit $?"
  python3 - "$out" "$tool" <<'PY' || fail "the /docs curl example of $tool answered: $out"
import json, sys
r = json.loads(sys.argv[1])
assert not r.get("isError"), r
sc = r["structuredContent"]
assert (sc["inbox_id"] and sc["address"]) if sys.argv[2] == "create_inbox" else sc["success"] is True, sc
PY
done

# 8. SIGTERM: clean exit 0.
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=""
[ "$rc" = 0 ] || fail "exit status after SIGTERM = $rc, want 0"
[ ! -e "$workspace" ] || fail "the temporary sandbox workspace $workspace is left after exit"

# 9. stdio: initialize + tools/list through a pipe, exit on EOF.
printf '%s\n%s\n' "$init" "$lst" | timeout 30 env -i PATH="$PATH" HOME="$work" \
  DEV_SMTP_ADDR="127.0.0.1:$smtp_port" DEV_IMAP_ADDR="127.0.0.1:$imap_port" "$bin" stdio >"$work/stdio.out" 2>"$work/stdio.err" \
  || fail "stdio exited non-zero: $(cat "$work/stdio.err")"
grep -q '"list_folders"' "$work/stdio.out" || fail "stdio tools/list: $(cat "$work/stdio.out")"
if grep -qv '^{' "$work/stdio.out"; then fail "stdio wrote non-protocol output to stdout"; fi

echo "smoke: OK (--version, sandbox, banner IMAP login, auth, SMTP->list_folders, create_inbox + SMTP -> wait_for_otp, INBOX_NOT_FOUND, every since form, the send_test_code recipe, attachments example, reply to 300 refused, /mcp, /sse, /docs + two of its curl examples, SIGTERM, stdio)"
