#!/usr/bin/env bash
# Every H200 figure of docs/measurements/render-h200.json from one command
# on the device machine (bundle: scripts/gpu_bundle.sh, carried as
# build/gpu-bundle): gpu_run.sh once per configuration, each into its own
# folder under $OUT, then all rows in one $OUT/render.json and the stats
# files in one $OUT/stats.tar.gz (the device returns few files).
#   GPU_SUITE=static   the spiral, static, n = 0, 10k, 100k, 1M (occlusion)
#   GPU_SUITE=moving   the spiral, 10 % moving, n = 1000, 10k, 100k, 1M
#   GPU_SUITE=fixed    the fixed scene (1M crates in a 600-unit cube),
#                      occlusion and frustum-only, and the spiral's 1M
#                      frustum-only
#   GPU_SUITE=all      the three (default); GPU_FRAMES as gpu_run.sh's.
#   GPU_SUITE=shading  where the geometry passes' time goes: the spiral's
#                      and the fixed scene's 1M static at 640x360 and with
#                      the depth prepass (not part of all)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
status=0
run() { # NAME, then the environment of gpu_run.sh
  local name="$1"
  shift
  echo "== $name: $*"
  env OUT="$out/$name" "$@" bash scripts/gpu_run.sh || status=1
}
suite="${GPU_SUITE:-all}"
if [ "$suite" = all ] || [ "$suite" = static ]; then
  run static GPU_INSTANCES="0 10000 100000 1000000" GPU_MOVING=0
fi
if [ "$suite" = all ] || [ "$suite" = moving ]; then
  run moving GPU_INSTANCES="1000 10000 100000 1000000" GPU_MOVING=10
fi
if [ "$suite" = all ] || [ "$suite" = fixed ]; then
  run fixed GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_CUBE=600
  run fixed-frustum GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_CUBE=600 GPU_CULLING=frustum
  run spiral-frustum GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_CULLING=frustum
fi
if [ "$suite" = shading ]; then
  quarter='.window.width = 640 | .window.height = 360'
  run static-640x360 GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_PROJECT="$quarter"
  run static-prepass GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_PROJECT='.renderer.depth_prepass = true'
  run fixed-640x360 GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_CUBE=600 GPU_PROJECT="$quarter"
  run fixed-prepass GPU_INSTANCES="1000000" GPU_MOVING=0 GPU_CUBE=600 \
    GPU_PROJECT='.renderer.depth_prepass = true'
fi
# one document: every configuration's rows, culling named per row
for d in "$out"/*/; do
  name=$(basename "$d")
  [ -f "$d/render.json" ] || continue
  culling=occlusion
  case "$name" in *frustum*) culling=frustum ;; esac
  jq --arg c "$culling" --arg s "$name" '.rows | map(. + {culling: $c, suite: $s})' "$d/render.json"
done | jq -s --slurpfile first <(jq '.' "$(ls "$out"/*/render.json | head -1)") \
  '$first[0] + {rows: add}' >"$out/render.json"
cp "$(ls "$out"/*/gpu.txt | head -1)" "$out/gpu.txt" 2>/dev/null || true
cat "$out"/*/logs.txt 2>/dev/null | tail -200 >"$out/logs-tail.txt"
tar -czf "$out/stats.tar.gz" -C "$out" $(cd "$out" && ls -d */)
for d in "$out"/*/; do rm -rf "$d"; done
exit $status
