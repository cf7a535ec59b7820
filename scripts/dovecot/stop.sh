#!/usr/bin/env bash
# Stop the Dovecot that scripts/dovecot/start.sh started for DIR: exactly the
# PID in DIR/dovecot.pid, with TERM, then KILL after 10 s. Never by name.
# Stopping a DIR whose Dovecot is not running succeeds.
#
# usage: scripts/dovecot/stop.sh DIR
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
pidfile="$1/dovecot.pid"
[ -s "$pidfile" ] || pidfile="$1/run/master.pid"
if [ ! -s "$pidfile" ]; then
  echo "stop.sh: no pid file in $1; nothing to stop" >&2
  exit 0
fi
pid=$(cat "$pidfile")
if ! [[ $pid =~ ^[0-9]+$ ]]; then
  echo "stop.sh: bad pid in $pidfile: $pid" >&2
  exit 1
fi
# The pid may have been reused since Dovecot ended: only a dovecot master
# is ours to stop.
if ! kill -0 "$pid" 2>/dev/null || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != dovecot ]; then
  echo "stop.sh: Dovecot (pid $pid) is not running"
  rm -f "$1/dovecot.pid"
  exit 0
fi

# alive reports whether pid runs; a zombie (ended, not yet reaped by an
# init that reaps slowly) does not count.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# Dovecot's master waits 1 s for its log process before it exits.
kill -TERM "$pid"
for ((i = 0; i < 200; i++)); do
  alive "$pid" || break
  sleep 0.05
done
if alive "$pid"; then
  echo "stop.sh: Dovecot (pid $pid) still running after 10 s; sending KILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$1/dovecot.pid"
echo "stop.sh: stopped Dovecot (pid $pid)"
