#!/usr/bin/env bash
# CI's `loaded` stage: the dev tests labelled window, engine, asset and gfx,
# pinned to one core (taskset -c 0) beside a busy loop on the same core, so
# the engine's threads, the cooker children and lavapipe share half a core.
# A test that depends on speed fails here; one that waits for events passes.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v taskset >/dev/null || { echo "loaded: taskset missing (util-linux)"; exit 1; }
taskset -c 0 bash -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null || true' EXIT
echo "loaded: CPU hog pid $hog on core 0"
taskset -c 0 ctest --test-dir build/dev --output-on-failure --timeout 300 --no-tests=error \
  -L 'window|engine|asset|gfx' "$@"
