#!/usr/bin/env bash
# `make demo`: the showcase from the release build. Headless (the null
# render backend; no window where there is no display): the runtime tour,
# then the game for 10 s of virtual time (paced at 240 iterations per second
# of wall time, so the render thread sees most of them) with its scripted
# input, writing its stats to build/demo.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/bin
project=build/release/samples/showcase/project
"$bin/showcase" --tour
"$bin/showcase" --headless --frames 600 --fixed-dt 0.0166666667 --max-fps 240 \
    --input "$project/input/demo.input" --stats build/demo.json "$@"
echo "demo: wrote build/demo.json"
