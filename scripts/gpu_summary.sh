#!/usr/bin/env bash
# The render figures of gpu_run.sh's stats files as one JSON document
# (docs/measurements/render-h200.json is its output): one row per run,
# with the crates, the percent moving, the device, each render-graph
# pass's GPU time, the render thread's CPU time, the main loop's average
# and p99 iteration, the draws and those visible, the instance records
# per rendered frame. Usage: gpu_summary.sh COMMIT MOVING FILE... (files
# named showcase-N.json); writes to stdout.
set -euo pipefail
commit="$1" moving="$2"
shift 2
for f in "$@"; do
  n=$(basename "$f" .json)
  n=${n#showcase-}
  jq --argjson n "$n" --argjson moving "$moving" '{
      instances: $n, moving_percent: $moving, device,
      gpu_ms: (.gpu_passes | map({(.name): .gpu_ms}) | add),
      render_cpu_ms, main_avg_ms: .avg_frame_ms, main_p99_ms: .p99_frame_ms,
      draws, draws_visible, frames_rendered,
      records_per_frame: (if .frames_rendered > 0 then .instance_records / .frames_rendered else 0 end),
      validation_messages }' "$f"
done | jq -s --arg commit "$commit" '{
  "$comment": [
    "NVIDIA H200: showcase --headless --backend vulkan --frames F --max-fps 1000 --instances N --moving P (real clock, 1280x720), from scripts/gpu_run.sh on the device machine (bundle: scripts/gpu_bundle.sh); rows summarised by scripts/gpu_summary.sh.",
    "gpu_ms: the last timed frame, per pass; render_cpu_ms: the render thread wall time of the last frame (it includes waiting for a frame slot when the GPU is the bottleneck); main_*_ms: main-loop iterations."
  ],
  commit: $commit, rows: . }'
