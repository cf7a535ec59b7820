#!/usr/bin/env bash
# Install nginx (Debian's package `nginx`) for the scale test, without
# letting the package start its own service on port 80 of every address: a
# policy-rc.d that exits 101 is in place for the install (any existing one
# is put back afterwards), as scripts/dovecot/install.sh does for Dovecot.
# The scale test starts nginx itself with `-c` its own configuration, on a
# loopback port. Idempotent: prints the version when nginx is installed.
# Needs root to install.
#
# usage: scripts/scale/install-nginx.sh
set -euo pipefail

package=nginx
policy=/usr/sbin/policy-rc.d

print_version() { nginx -v 2>&1; }

status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
if [ "$status" = installed ] && command -v nginx >/dev/null; then
  print_version
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-nginx.sh: must run as root to install $package" >&2
  exit 1
fi

backup=""
restore_policy() {
  rm -f "$policy"
  if [ -n "$backup" ]; then mv "$backup" "$policy"; fi
}
if [ -e "$policy" ]; then
  backup=$(mktemp "$policy.emcp.XXXXXX")
  mv "$policy" "$backup"
fi
trap restore_policy EXIT
printf '#!/bin/sh\n# email-mcp scripts/scale/install-nginx.sh: no service starts during the install.\nexit 101\n' >"$policy"
chmod 0755 "$policy"

export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -q --no-install-recommends "$package" >/dev/null; }
# apt-get update only when the index does not know the package or is stale.
if ! apt-cache show "$package" >/dev/null 2>&1 || ! apt_install; then
  echo "install-nginx.sh: running apt-get update, then installing again" >&2
  apt-get update -q >/dev/null
  apt_install
fi
# On a machine that runs systemd, keep the system's nginx (port 80 of every
# address) from starting at the next boot too.
if [ -d /run/systemd/system ]; then
  systemctl disable --quiet nginx.service 2>/dev/null || true
fi
print_version
