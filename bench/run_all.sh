#!/usr/bin/env bash
# Runs every benchmark suite at full size and validates what it wrote.
#   bench/run_all.sh [BIN_DIR] [OUT_DIR]     (defaults: build/release/bin build/bench)
# BENCH_ARGS adds options to every suite, e.g. BENCH_ARGS="--filter heap".
# Paths are relative to the repository root. Exit status: non-zero when a
# suite failed or wrote a file the schema rejects.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="${1:-build/release/bin}"
OUT="${2:-build/bench}"
read -r -a EXTRA <<<"${BENCH_ARGS:-}"

if [ ! -x "$BIN/bench_schema_check" ]; then
  echo "run_all.sh: $BIN/bench_schema_check not found; build first:" >&2
  echo "  cmake --preset release && cmake --build build/release" >&2
  exit 2
fi
mkdir -p "$OUT"

status=0
ran=()
for exe in "$BIN"/bench_*; do
  name="$(basename "$exe")"
  [ "$name" = bench_schema_check ] && continue
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  suite="${name#bench_}"
  echo "=== $name"
  rm -f "$OUT/$suite.json"
  if ! "$exe" --out "$OUT" "${EXTRA[@]}"; then
    echo "run_all.sh: $name failed" >&2
    status=1
  fi
  [ -f "$OUT/$suite.json" ] && ran+=("$OUT/$suite.json")
done

if [ ${#ran[@]} -eq 0 ]; then
  echo "run_all.sh: no benchmark wrote results" >&2
  exit 1
fi
echo "=== schema"
"$BIN/bench_schema_check" bench/schema.json "${ran[@]}" || status=1
exit $status
