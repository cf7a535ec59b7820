#!/usr/bin/env bash
# Install Dovecot (IMAP + LMTP) and openssl for the Dovecot test tier,
# without letting the package start its own service on ports 143/993 of
# every address: a policy-rc.d that exits 101 is in place for the install
# (any existing one is put back afterwards). Idempotent: does nothing but
# print the version when everything is already installed. Needs root.
#
# usage: scripts/dovecot/install.sh
set -euo pipefail

packages=(dovecot-imapd dovecot-lmtpd openssl)
policy=/usr/sbin/policy-rc.d

# missing lists the packages not installed yet (installing one that is
# would upgrade it, openssl for one).
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

had_core=$(dpkg-query -W -f='${db:Status-Status}' dovecot-core 2>/dev/null || true)

print_version() { echo "dovecot $(dovecot --version)"; }

if [ ${#missing[@]} -eq 0 ]; then
  print_version
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: must run as root to install ${missing[*]}" >&2
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
printf '#!/bin/sh\n# email-mcp scripts/dovecot/install.sh: no service starts during the install.\nexit 101\n' >"$policy"
chmod 0755 "$policy"

export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
# apt-get update only when the package index does not know the packages yet
# or points at files the mirror no longer has (a stale index answers 404).
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1 || ! apt_install; then
  echo "install.sh: running apt-get update, then installing again" >&2
  apt-get update -q >/dev/null
  apt_install
fi
# On a machine that runs systemd, keep the system's own Dovecot (all
# addresses, ports 143/993) from starting at the next boot too.
if [ -d /run/systemd/system ] && [ "$had_core" != installed ]; then
  systemctl disable --quiet dovecot.service dovecot.socket 2>/dev/null || true
fi
print_version
