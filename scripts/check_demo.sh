#!/usr/bin/env bash
# After `make demo`: build/demo.json must show a run that did something:
# ok, frames > 0, instances > 0, allocations_per_frame reported, a clean
# shutdown. Used by `make ci`. (Plain shell: CI machines may lack python.)
set -euo pipefail
cd "$(dirname "$0")/.."
f=build/demo.json
[ -s "$f" ] || { echo "demo.json: missing"; exit 1; }
num() { grep -oE "\"$1\": *-?[0-9.eE+-]+" "$f" | head -1 | sed -E 's/.*: *//'; }
problems=()
grep -qE '"ok": *true' "$f" || problems+=("the run failed: $(grep -oE '"error": *"[^"]*"' "$f")")
grep -qE '"shutdown_complete": *true' "$f" || problems+=("shutdown not complete")
frames=$(num frames) instances=$(num instances) lights=$(num lights) apf=$(num allocations_per_frame)
[ "${frames:-0}" -gt 0 ] 2>/dev/null || problems+=("frames is not > 0")
[ "${instances:-0}" -gt 0 ] 2>/dev/null || problems+=("instances is not > 0")
[ -n "$apf" ] || problems+=("allocations_per_frame missing")
if [ ${#problems[@]} -gt 0 ]; then
  printf 'demo.json: %s\n' "${problems[@]}"
  exit 1
fi
echo "demo.json: $frames frames, $instances instances, $lights lights, $apf allocations per frame"
