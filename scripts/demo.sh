#!/usr/bin/env bash
# `make demo`: the showcase from the release build, headless (no window
# where there is no display): the runtime tour,
# then the game for 10 s of virtual time (paced at 240 iterations per second
# of wall time, so the render thread sees most of them) with its scripted
# input, writing its stats to build/demo.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/bin
project=build/release/samples/showcase/project
"$bin/showcase" --tour
run_game() {
  "$bin/showcase" --headless --frames 600 --fixed-dt 0.0166666667 --max-fps 240 \
    --input "$project/input/demo.input" --stats build/demo.json "$@"
}
# The Vulkan backend (a GPU, or lavapipe on machines without one) renders
# the last frame into build/demo.png; without any Vulkan device the game
# still runs on the null backend.
rm -f build/demo.png
if run_game --backend vulkan --screenshot build/demo.png "$@"; then
  echo "demo: wrote build/demo.json and build/demo.png"
else
  echo "demo: the Vulkan backend could not run here; running on the null backend (no image)"
  run_game --backend null "$@"
  echo "demo: wrote build/demo.json"
fi
