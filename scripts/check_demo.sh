#!/usr/bin/env bash
# After `make demo`: build/demo.json must show a run that did something:
# ok, frames > 0, instances > 0, allocations_per_frame reported, a clean
# shutdown, and the backend scripts/demo.sh chose (build/demo.backend). With
# the Vulkan backend, build/demo.png must exist and match the committed
# reference picture samples/showcase/reference/demo.png within a tolerance
# (`zengine compare`: a pixel differs when a channel is off by more than 8
# of 255; at most 0.5 % of the pixels may differ). An issue that changes
# the picture on purpose updates the reference (cp build/demo.png
# samples/showcase/reference/demo.png, after looking at it). Used by
# `make ci`. (Plain shell: CI machines may lack python.)
set -euo pipefail
cd "$(dirname "$0")/.."
f=build/demo.json
ref=samples/showcase/reference/demo.png
[ -s "$f" ] || { echo "demo.json: missing"; exit 1; }
num() { grep -oE "\"$1\": *-?[0-9.eE+-]+" "$f" | head -1 | sed -E 's/.*: *//'; }
str() { grep -oE "\"$1\": *\"[^\"]*\"" "$f" | head -1 | sed -E 's/.*: *"//; s/"$//'; }
problems=()
grep -qE '"ok": *true' "$f" || problems+=("the run failed: $(grep -oE '"error": *"[^"]*"' "$f")")
grep -qE '"shutdown_complete": *true' "$f" || problems+=("shutdown not complete")
frames=$(num frames) instances=$(num instances) lights=$(num lights) apf=$(num allocations_per_frame)
[ "${frames:-0}" -gt 0 ] 2>/dev/null || problems+=("frames is not > 0")
[ "${instances:-0}" -gt 0 ] 2>/dev/null || problems+=("instances is not > 0")
[ -n "$apf" ] || problems+=("allocations_per_frame missing")
chosen=$(cat build/demo.backend 2>/dev/null || echo "?")
backend=$(str backend)
[ "$backend" = "$chosen" ] || problems+=("backend is '$backend', scripts/demo.sh chose '$chosen'")
if [ "$chosen" = vulkan ]; then
  rendered=$(num frames_rendered)
  [ "${rendered:-0}" -gt 0 ] 2>/dev/null || problems+=("frames_rendered is not > 0")
  if [ ! -s build/demo.png ]; then
    problems+=("build/demo.png missing")
  elif ! build/release/bin/zengine compare build/demo.png "$ref"; then
    problems+=("build/demo.png does not match $ref (look at both; if the change is meant, update the reference)")
  fi
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'demo: %s\n' "${problems[@]}"
  exit 1
fi
echo "demo.json: $frames frames, $instances instances, $lights lights, $apf allocations per frame, backend $backend ($(str device))"
if [ "$chosen" != vulkan ]; then
  echo "demo: ##############################################################"
  echo "demo: NOT COMPARED: no Vulkan driver here, so no picture to compare with $ref"
  echo "demo: ##############################################################"
fi
