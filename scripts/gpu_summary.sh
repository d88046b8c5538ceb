#!/usr/bin/env bash
# The render figures of gpu_run.sh's stats files as one JSON document
# (docs/measurements/render-h200.json is its output): one row per run,
# with the crates, the percent moving, the device, each render-graph
# pass's GPU time, the render thread's wall and own CPU time, the main loop's average
# and p99 iteration, the draws and those visible, the instance records
# per rendered frame, the draws culled by the frustum and by occlusion, the
# instanced draw commands, the triangles they drew with the geometry
# passes' rate (forward and forward_late), and the early culling's whole
# cost (bins_clear + cull + bins + place: test and compaction into
# instanced commands). Usage: [GPU_CUBE=S] gpu_summary.sh COMMIT MOVING FILE...
# (files named showcase-N.json); writes to stdout.
set -euo pipefail
commit="$1" moving="$2"
shift 2
for f in "$@"; do
  n=$(basename "$f" .json)
  n=${n#showcase-}
  jq --argjson n "$n" --argjson moving "$moving" --argjson cube "${GPU_CUBE:-0}" '{
      instances: $n, moving_percent: $moving, cube: $cube, device,
      gpu_ms: (.gpu_passes | map({(.name): .gpu_ms}) | add),
      render_cpu_ms, render_thread_cpu_ms, render_thread_cpu_steady_ms, main_avg_ms: .avg_frame_ms, main_p99_ms: .p99_frame_ms,
      draws, draws_visible, draws_frustum_culled, draws_occlusion_culled, frames_rendered, frames_drawn,
      draw_commands, triangles,
      cull_compact_ms: (.gpu_passes | map(select(.name == "bins_clear" or .name == "cull" or .name == "bins" or .name == "place") | .gpu_ms) | add),
      geometry_gtri_per_s: ((.gpu_passes | map(select(.name == "forward" or .name == "forward_late") | .gpu_ms) | add) as $g
        | if $g > 0 then .triangles / ($g * 1e6) else null end),
      records_per_frame: (if .frames_rendered > 0 then .instance_records / .frames_rendered else 0 end),
      validation_messages }' "$f"
done | jq -s --arg commit "$commit" '{
  "$comment": [
    "NVIDIA H200: showcase --headless --backend vulkan --frames F --max-fps 1000 --instances N --moving P --cube S (real clock, 1280x720; cube 0: the spiral), from scripts/gpu_run.sh on the device machine (bundle: scripts/gpu_bundle.sh); rows summarised by scripts/gpu_summary.sh.",
    "gpu_ms: the last timed frame, per pass; render_cpu_ms: the render thread wall time of the last frame (it includes waiting for a frame slot when the GPU is the bottleneck); render_thread_cpu_ms: its own CPU time (CLOCK_THREAD_CPUTIME_ID) in the last frame, render_thread_cpu_steady_ms: the mean after the first 10 frames; main_*_ms: main-loop iterations."
  ],
  commit: $commit, rows: . }'
