#!/usr/bin/env bash
# Start a private Dovecot for the test tier, everything under DIR: a small CA
# and a server certificate for 127.0.0.1/localhost, dovecot.conf with its own
# base_dir, the log, a passwd-file with two users and their Maildirs. It
# listens on loopback only, on ports chosen free at start: IMAP (plain and
# STARTTLS), IMAPS (implicit TLS) and LMTP (delivery). /etc/dovecot is never
# read or touched. When the IMAP port greets, DIR/env holds the variables
# the Go tests read (export them with: set -a; . DIR/env; set +a).
#
# As root, Dovecot keeps the mailboxes as the system user emcptest (created
# if missing). As another user, Dovecot runs entirely as that user.
#
# usage: scripts/dovecot/start.sh DIR      (stop with scripts/dovecot/stop.sh DIR)
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
mkdir -p "$1"
dir=$(cd "$1" && pwd)
run="$dir/run"
mail_user=emcptest
test_domain=tests.example.test
# Unix socket paths are limited to 108 bytes; Dovecot's longest name under
# base_dir is about 40.
if [ ${#run} -gt 60 ]; then
  echo "start.sh: DIR path too long for Dovecot's sockets (keep it under 55 characters): $dir" >&2
  exit 2
fi
if ! command -v dovecot >/dev/null; then
  echo "start.sh: dovecot not installed; run scripts/dovecot/install.sh first" >&2
  exit 1
fi
if [ -s "$dir/dovecot.pid" ] && kill -0 "$(cat "$dir/dovecot.pid")" 2>/dev/null; then
  echo "start.sh: a Dovecot already runs for $dir (pid $(cat "$dir/dovecot.pid")); stop it first" >&2
  exit 1
fi

log() { echo "start.sh: $*" >&2; }

# free_ports N prints N distinct loopback TCP ports on which nothing listens
# now, below the kernel's ephemeral range (32768 and up, where the tests'
# own 127.0.0.1:0 listeners and outgoing connections live). A port taken
# between this check and Dovecot's bind makes Dovecot fail to start, and
# start.sh tries again with new ports.
free_ports() {
  local -a ports=()
  local p tries
  for ((tries = 0; ${#ports[@]} < $1 && tries < 200; tries++)); do
    p=$((20000 + RANDOM % 12768))
    if [[ " ${ports[*]} " == *" $p "* ]] || (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      continue # taken, or something listens there
    fi
    ports+=("$p")
  done
  echo "${ports[*]}"
}

# make_certs writes ca.pem (the CA clients trust) and server.pem/server.key.
make_certs() {
  local ext="$dir/tls/server.ext"
  mkdir -p "$dir/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -keyout "$dir/tls/ca.key" -out "$dir/ca.pem" -subj "/CN=email-mcp Dovecot test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/tls/server.key" -out "$dir/tls/server.csr" -subj "/CN=localhost" 2>/dev/null
  printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$ext"
  openssl x509 -req -in "$dir/tls/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/tls/ca.key" \
    -CAserial "$dir/tls/ca.srl" -CAcreateserial -days 30 -extfile "$ext" -out "$dir/tls/server.pem" 2>/dev/null
  chmod 0600 "$dir/tls/ca.key" "$dir/tls/server.key"
  chmod 0644 "$dir/ca.pem"
}

# pick_identity sets uid/gid (owner of the mailboxes) and the extra settings
# that let Dovecot run without root.
pick_identity() {
  if [ "$(id -u)" -eq 0 ]; then
    if ! id -u "$mail_user" >/dev/null 2>&1; then
      useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$mail_user"
    fi
    uid=$(id -u "$mail_user")
    gid=$(id -g "$mail_user")
    identity_conf=""
  else
    uid=$(id -u)
    gid=$(id -g)
    local me group
    me=$(id -un)
    group=$(id -gn)
    identity_conf="default_internal_user = $me
default_internal_group = $group
default_login_user = $me
service anvil {
  chroot =
}
service imap-login {
  chroot =
}"
  fi
}

# write_users writes the passwd-file and the users' homes.
write_users() {
  local r
  r=$(openssl rand -hex 48)
  password=${r:0:32} password2=${r:32:32} test_password=${r:64:32}
  mkdir -p "$dir/home"
  printf '%s\n' \
    "alice@example.test:{PLAIN}$password:$uid:$gid::$dir/home/alice@example.test::" \
    "bob@example.test:{PLAIN}$password2:$uid:$gid::$dir/home/bob@example.test::" >"$dir/passwd"
  # Dovecot's auth process (user dovecot) reads the passwd-file.
  if [ "$(id -u)" -eq 0 ] && getent group dovecot >/dev/null; then
    chgrp dovecot "$dir/passwd"
    chmod 0640 "$dir/passwd"
  else
    chmod 0600 "$dir/passwd"
  fi
  chown "$uid:$gid" "$dir/home"
  chmod 0700 "$dir/home"
}

# oauth_conf sets oauth_mechs and oauth_passdb: with
# DOVECOT_OAUTH_INTROSPECT_URL set (scripts/dovecot/oauth-tier.sh), Dovecot
# also takes XOAUTH2 and OAUTHBEARER and checks the token at that RFC 7662
# endpoint (its oauth2 passdb, last: password logins never reach it).
oauth_conf() {
  oauth_mechs="" oauth_passdb=""
  [ -n "${DOVECOT_OAUTH_INTROSPECT_URL:-}" ] || return 0
  oauth_mechs=" xoauth2 oauthbearer"
  printf '%s\n' "introspection_mode = post" "introspection_url = $DOVECOT_OAUTH_INTROSPECT_URL" \
    "username_attribute = email" "active_attribute = active" "active_value = true" >"$dir/dovecot-oauth2.conf.ext"
  chmod 0644 "$dir/dovecot-oauth2.conf.ext"
  oauth_passdb="passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = $dir/dovecot-oauth2.conf.ext
}"
}

# write_conf writes dovecot.conf for the ports in imap_port, imaps_port and
# lmtp_port.
write_conf() {
  oauth_conf
  cat >"$dir/dovecot.conf" <<EOF
# Written by scripts/dovecot/start.sh for the email-mcp test tier. Loopback only.
instance_name = emcp-$(basename "$dir")
base_dir = $run
state_dir = $dir/state
log_path = $dir/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
postmaster_address = postmaster@example.test

ssl = yes
ssl_cert = <$dir/tls/server.pem
ssl_key = <$dir/tls/server.key
ssl_min_protocol = TLSv1.2

# Plain LOGIN on the plain port is for loopback tests; STARTTLS stays offered.
disable_plaintext_auth = no
auth_mechanisms = plain login$oauth_mechs
# A failed login answers at once (the default waits 2 s).
auth_failure_delay = 0
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $dir/passwd
}
# Any user of the test domain logs in with the test password and gets a
# fresh mailbox on first login: each Go test uses its own user.
passdb {
  driver = static
  args = password=$test_password
  username_filter = *@$test_domain
}
$oauth_passdb
userdb {
  driver = passwd-file
  args = username_format=%u $dir/passwd
}
userdb {
  driver = static
  args = uid=$uid gid=$gid home=$dir/home/%u
}

mail_location = maildir:~/Maildir:LAYOUT=fs
first_valid_uid = $uid
first_valid_gid = $gid
mail_fsync = never
mailbox_idle_check_interval = 1 secs
$identity_conf

namespace inbox {
  inbox = yes
  separator = /
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
  mailbox Drafts {
    special_use = \\Drafts
    auto = subscribe
  }
  mailbox Trash {
    special_use = \\Trash
    auto = subscribe
  }
  mailbox Junk {
    special_use = \\Junk
    auto = subscribe
  }
  mailbox Archive {
    special_use = \\Archive
    auto = subscribe
  }
}

protocol imap {
  mail_max_userip_connections = 200
  imap_idle_notify_interval = 2 mins
}

service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $imap_port
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $imaps_port
    ssl = yes
  }
  # Performance mode: a few long-lived login processes instead of one per
  # connection.
  service_count = 0
  process_min_avail = 2
}

service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $lmtp_port
  }
}

# No login delay after a failed login (the auth penalty), which would slow
# every later login from 127.0.0.1 by seconds.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
EOF
}

# greets PORT succeeds when an IMAP greeting arrives on 127.0.0.1:PORT.
greets() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    IFS= read -r -t 2 line <&3
    [[ $line == "* OK"* ]]
  ) 2>/dev/null
}

# launch starts Dovecot and waits up to 10 s for the greeting; it fails when
# Dovecot exits early (a port taken since it was chosen, for one).
launch() {
  rm -rf "$run" # a stale socket there makes the auth process retry for 5 s
  mkdir -p "$dir/state"
  : >"$dir/dovecot.log"
  dovecot -c "$dir/dovecot.conf" </dev/null >/dev/null 2>"$dir/dovecot.stderr" || return 1
  local i
  for ((i = 0; i < 100; i++)); do
    if [ -s "$run/master.pid" ] && greets "$imap_port"; then
      cp "$run/master.pid" "$dir/dovecot.pid"
      return 0
    fi
    if [ -s "$run/master.pid" ] && ! kill -0 "$(cat "$run/master.pid")" 2>/dev/null; then
      return 1
    fi
    sleep 0.1
  done
  log "no IMAP greeting on 127.0.0.1:$imap_port after 10 s"
  [ -s "$run/master.pid" ] && kill "$(cat "$run/master.pid")" 2>/dev/null
  return 1
}

write_env() {
  umask 077
  {
    printf '%s=%q\n' EMAIL_MCP_TEST_DOVECOT 1
    printf '%s=%q\n' DOVECOT_IMAP_ADDR "127.0.0.1:$imap_port"
    printf '%s=%q\n' DOVECOT_IMAPS_ADDR "127.0.0.1:$imaps_port"
    printf '%s=%q\n' DOVECOT_LMTP_ADDR "127.0.0.1:$lmtp_port"
    printf '%s=%q\n' DOVECOT_USER alice@example.test
    printf '%s=%q\n' DOVECOT_PASSWORD "$password"
    printf '%s=%q\n' DOVECOT_USER2 bob@example.test
    printf '%s=%q\n' DOVECOT_PASSWORD2 "$password2"
    printf '%s=%q\n' DOVECOT_TEST_DOMAIN "$test_domain"
    printf '%s=%q\n' DOVECOT_TEST_PASSWORD "$test_password"
    printf '%s=%q\n' DOVECOT_CA_FILE "$dir/ca.pem"
    printf '%s=%q\n' DOVECOT_DIR "$dir"
  } >"$dir/env"
}

# The mail user (and Dovecot's own users) must be able to pass through DIR.
chmod 0711 "$dir"
pick_identity
make_certs
write_users
if [ "$(id -u)" -eq 0 ] && ! runuser -u "$mail_user" -- test -w "$dir/home"; then
  echo "start.sh: user $mail_user cannot reach $dir/home: put DIR where every user can pass (e.g. under /tmp)" >&2
  exit 1
fi
for attempt in 1 2 3; do
  read -r imap_port imaps_port lmtp_port < <(free_ports 3)
  write_conf
  if launch; then
    write_env
    echo "dovecot ready: imap 127.0.0.1:$imap_port imaps 127.0.0.1:$imaps_port lmtp 127.0.0.1:$lmtp_port pid $(cat "$dir/dovecot.pid") env $dir/env"
    exit 0
  fi
  log "attempt $attempt failed; log:"
  tail -n 20 "$dir/dovecot.log" >&2 || true
  # Only a port taken since it was chosen is worth another attempt.
  grep -q "Address already in use" "$dir/dovecot.log" || break
done
log "Dovecot did not start"
exit 1
