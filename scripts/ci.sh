#!/usr/bin/env bash
# The CI pipeline, stage by stage, with each stage's duration. Stops at the
# first failing stage and says which. Budget: under 60 minutes on 2 cores.
# `loaded` reruns the window, engine, asset and gfx tests on one core beside
# a CPU hog (scripts/loaded.sh): a test that depends on speed fails there.
# `consumer` installs the release build and builds and runs examples/consumer
# against the prefix with CMake and pkg-config (scripts/consumer.sh).
set -uo pipefail
cd "$(dirname "$0")/.."

declare -a SUMMARY=()
total_start=$(date +%s)

stage() {
  local name="$1"
  shift
  echo
  echo "=============== stage: $name"
  local start end rc
  start=$(date +%s)
  "$@"
  rc=$?
  end=$(date +%s)
  SUMMARY+=("$(printf '%-14s %5ss  %s' "$name" "$((end - start))" "$([ $rc -eq 0 ] && echo ok || echo FAILED)")")
  if [ $rc -ne 0 ]; then
    report
    echo "ci: stage '$name' failed (exit $rc)"
    exit $rc
  fi
}

report() {
  echo
  echo "=============== ci summary"
  printf '%s\n' "${SUMMARY[@]}"
  echo "total          $(( $(date +%s) - total_start ))s"
}

stage format make --no-print-directory format-check
stage test make --no-print-directory test
stage loaded bash scripts/loaded.sh
stage asan make --no-print-directory test-asan
stage tsan make --no-print-directory test-tsan
stage fuzz make --no-print-directory fuzz
stage demo bash -c "make --no-print-directory demo && bash scripts/check_demo.sh"
stage consumer bash scripts/consumer.sh
report
