#!/usr/bin/env bash
# Runs every fuzz target of the repository for a bounded number of executions
# and prints the executions of each and in all. A failing input is written by
# go test to <pkg>/testdata/fuzz/<Target>/ and fails this script.
#
#   scripts/fuzz.sh            # the budgets below (about 2 minutes on 2 cores)
#   FUZZ_SCALE=10 scripts/fuzz.sh   # ten times longer
#
# Budgets are execution counts (-fuzztime Nx), not durations: Go 1.26's fuzz
# coordinator can report a spurious "context deadline exceeded" when a
# duration runs out under CPU load (golang/go#75804, fixed in Go 1.27).
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${FUZZ_SCALE:-1}

# package target executions
targets="
./message FuzzParseBodies 60000
./message FuzzParseHeader 100000
./message FuzzHTMLToText 60000
./message FuzzWindow 100000
./extract FuzzOTP 60000
./extract FuzzLinks 60000
./smtp FuzzParseAddress 100000
./smtp FuzzMessageHeaders 60000
./smtp FuzzReplyRecipients 100000
./attachments FuzzSanitizeFilename 100000
./attachments FuzzResolve 30000
./config FuzzEnvFile 60000
./imap FuzzSearchCriteria 20000
./tools FuzzBindArgs 60000
./tools FuzzToolCall 20000
./tools FuzzResultBounds 3000
./message FuzzClean 100000
./mcpkit FuzzCleanJSON 60000
./devmail FuzzStoreDamage 1000
./devmail/internal/memstore FuzzMIMEWalk 30000
"
total=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while read -r pkg target n; do
  [ -z "$pkg" ] && continue
  n=$((n * scale))
  if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "${n}x" -parallel 2 >"$log" 2>&1; then
    echo "fuzz: $pkg $target FAILED"; cat "$log"; exit 1
  fi
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  execs=${execs:-0}
  total=$((total + execs))
  printf 'fuzz: %-14s %-22s %8d execs  ok\n' "$pkg" "$target" "$execs"
done <<<"$targets"
echo "fuzz: all targets ok, $total executions"
