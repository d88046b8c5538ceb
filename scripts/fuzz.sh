#!/usr/bin/env bash
# Runs every libFuzzer target for N seconds from its committed seed corpus
# (fuzz/corpus/<target>/). New inputs go to a scratch directory so the
# committed corpus stays as reviewed. Any crash fails the run; the crashing
# input is left in build/fuzz-artifacts/.
#   scripts/fuzz.sh BIN_DIR SECONDS
set -uo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-build/asan/bin}"
SECS="${2:-30}"
ART="build/fuzz-artifacts"
mkdir -p "$ART"
status=0
found=0
for exe in "$BIN"/fuzz_*; do
  [ -x "$exe" ] || continue
  found=1
  name="$(basename "$exe")"
  target="${name#fuzz_}"
  seeds="fuzz/corpus/$target"
  work="$(mktemp -d)"
  echo "--- $name for ${SECS}s (seeds: $seeds)"
  if ! "$exe" -max_total_time="$SECS" -print_final_stats=1 -artifact_prefix="$ART/$name-" \
      "$work" "$seeds" 2>&1 | tail -n 12; then
    echo "fuzz: $name FAILED"
    status=1
  fi
  rm -rf "$work"
done
if [ $found -eq 0 ]; then
  echo "fuzz: no fuzz targets in $BIN" >&2
  exit 1
fi
exit $status
