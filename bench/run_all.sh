#!/usr/bin/env bash
# Runs every benchmark suite at full size and checks what it wrote.
#   bench/run_all.sh [BIN_DIR] [OUT_DIR]     (defaults: build/release/bin build/bench)
# BENCH_ARGS adds options to every suite, e.g. BENCH_ARGS="--filter heap".
# Paths are relative to the repository root.
#
# After each suite its file is checked against bench/schema.json, and its rows
# against bench/expected_rows.json (BENCH_EXPECTED names another file): every
# listed row must be there, and every target is printed against its row,
# PASS or MISS. A suite listed in expected_rows.json whose program did not
# write a file (no bench_<suite> in BIN_DIR, say) fails the run.
#
# Exit status: non-zero when a suite failed, wrote a file the schema rejects,
# lacks an expected row, or wrote no file although expected_rows.json lists
# it. A missed target is reported (and summed up at the end) but does not
# fail: the machines are shared and noisy; BENCH_STRICT_TARGETS=1 makes it
# fail. With --filter in BENCH_ARGS, rows that did not run are not missing;
# with --smoke, targets are not checked. BENCH_WITHOUT="testdata" excuses the
# rows that need ../shared/testdata where it is absent.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
BIN="${1:-build/release/bin}"
OUT="${2:-build/bench}"
EXPECTED="${BENCH_EXPECTED:-bench/expected_rows.json}"
read -r -a EXTRA <<<"${BENCH_ARGS:-}"

for tool in bench_schema_check bench_rows_check; do
  if [ ! -x "$BIN/$tool" ]; then
    echo "run_all.sh: $BIN/$tool not found; build first:" >&2
    echo "  cmake --preset release && cmake --build build/release" >&2
    exit 2
  fi
done
mkdir -p "$OUT"

# What the rows check is told about this run.
smoke=0
filtered=0
for arg in "${EXTRA[@]}"; do
  case "$arg" in
  --smoke) smoke=1 ;;
  --filter | --filter=*) filtered=1 ;;
  esac
done
rows_args=()
# rows that require "full" are written by full runs only
[ $smoke -eq 1 ] && rows_args+=(--without full)
# rows that require "display" (render's windowed main loop): under Xvfb
# when there is no display and xvfb-run exists; not required otherwise
display_wrap=()
if [ $smoke -eq 1 ]; then
  rows_args+=(--without display)
elif [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  if command -v xvfb-run >/dev/null 2>&1; then
    display_wrap=(xvfb-run -a -s "-screen 0 1280x720x24 -noreset")
  else
    echo "run_all.sh: no display and no xvfb-run: rows that need one are not required"
    rows_args+=(--without display)
  fi
fi
if [ $smoke -eq 0 ]; then
  rows_args+=(--targets)
  [ "${BENCH_STRICT_TARGETS:-0}" = 1 ] && rows_args+=(--fail-on-miss)
fi
[ $filtered -eq 1 ] && rows_args+=(--filtered)
for tag in ${BENCH_WITHOUT:-}; do
  rows_args+=(--without "$tag")
done

if ! listed_text="$("$BIN/bench_rows_check" --list "$EXPECTED")"; then
  echo "run_all.sh: cannot read the suites of $EXPECTED (see above)" >&2
  exit 2
fi
mapfile -t listed <<<"$listed_text"
# A file left by an earlier run must not stand in for a suite that no longer runs.
for suite in "${listed[@]}"; do
  rm -f "$OUT/$suite.json"
done

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

status=0
ran=()
problems=()
# Checks one suite's file; the rows check's lines also go to $log.
check_suite() {
  local suite="$1" file="$OUT/$1.json" why="${2:-rows (above)}"
  if [ -f "$file" ] && ! "$BIN/bench_schema_check" bench/schema.json "$file"; then
    problems+=("$suite: $file does not match bench/schema.json")
    status=1
  fi
  "$BIN/bench_rows_check" "${rows_args[@]}" "$EXPECTED" "$suite" "$file" | tee -a "$log"
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    problems+=("$suite: $why")
    status=1
  fi
}

for exe in "$BIN"/bench_*; do
  name="$(basename "$exe")"
  case "$name" in
  bench_schema_check | bench_rows_check) continue ;;
  esac
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  suite="${name#bench_}"
  echo "=== $name"
  rm -f "$OUT/$suite.json"
  wrap=()
  [ "$suite" = render ] && wrap=("${display_wrap[@]}")
  if ! "${wrap[@]}" "$exe" --out "$OUT" "${EXTRA[@]}"; then
    echo "run_all.sh: $name failed" >&2
    problems+=("$name failed")
    status=1
  fi
  ran+=("$suite")
  check_suite "$suite"
done

if [ ${#ran[@]} -eq 0 ]; then
  echo "run_all.sh: no benchmark program in $BIN" >&2
  exit 1
fi

# Suites listed with no program: the rows an issue asked for never ran.
for suite in "${listed[@]}"; do
  [ -n "$suite" ] || continue
  case " ${ran[*]} " in
  *" $suite "*) continue ;;
  esac
  echo "=== $suite: listed in $EXPECTED, but $BIN has no bench_$suite"
  check_suite "$suite" "listed in $EXPECTED, but nothing wrote $OUT/$suite.json"
done

echo "=== summary"
misses="$(grep -c 'target MISSED' "$log")"
if [ "$misses" -gt 0 ]; then
  grep 'target MISSED' "$log"
  if [ "${BENCH_STRICT_TARGETS:-0}" = 1 ]; then
    echo "run_all.sh: $misses target(s) missed (BENCH_STRICT_TARGETS=1: a failure)"
  else
    echo "run_all.sh: $misses target(s) missed: reported, not a failure (shared, noisy" \
      "machines: run the suite again; BENCH_STRICT_TARGETS=1 fails on them)"
  fi
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'run_all.sh: FAILED: %s\n' "${problems[@]}" >&2
else
  what="every expected row written"
  [ $filtered -eq 1 ] && what="the expected rows that --filter selected written"
  echo "run_all.sh: ${#ran[@]} suite(s), $what, results in $OUT"
fi
exit $status
