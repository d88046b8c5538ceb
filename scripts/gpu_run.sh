#!/usr/bin/env bash
# On the GPU machine (see scripts/gpu_bundle.sh): unpack the bundle's
# loader packages, then run the release showcase with the Vulkan backend on
# the machine's driver, headless, and write the figures under $OUT
# (default ./gpu-out): the device, every render-graph pass's GPU time
# (gpu_passes), the render thread's CPU time and the main loop's, at the
# showcase scene and with --instances N for each N in GPU_INSTANCES
# (default "0 10000 100000"; GPU_FRAMES frames each, default 3000; GPU_MOVING
# percent of the extra crates moving, default 25; GPU_CULLING: the project's
# renderer.culling, default the project's own: occlusion; GPU_CUBE=S: the
# crates fill an S-unit cube, showcase --cube, the fixed 1M scene being
# GPU_INSTANCES=1000000 GPU_CUBE=600 GPU_MOVING=0; GPU_PROJECT: a jq filter
# applied to the project's project.json, e.g. '.renderer.depth_prepass =
# true' or '.window.width = 640 | .window.height = 360'), plus the last frame as a PNG (files back
# from the device machine: at most 8, so the PNGs of the first and last N
# only; the logs in one file).
set -uo pipefail
cd "$(dirname "$0")/.."
b=build/gpu-bundle
out="${OUT:-gpu-out}"
mkdir -p "$out"
for f in "$b"/deb/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$b/lib"
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1 || true
echo "bundle of commit $(cat "$b/commit")" | tee -a "$out/gpu.txt"
status=0
for n in ${GPU_INSTANCES:-0 10000 100000}; do
  rm -rf /tmp/zengine-gpu-project && cp -r "$b/project" /tmp/zengine-gpu-project
  filter='.'
  [ -n "${GPU_CULLING:-}" ] && filter="$filter | .renderer.culling = \"$GPU_CULLING\""
  [ -n "${GPU_PROJECT:-}" ] && filter="$filter | $GPU_PROJECT"
  jq "$filter" "$b/project/project.json" >/tmp/zengine-gpu-project/project.json || status=1
  "$b/bin/showcase" --project /tmp/zengine-gpu-project/project.json --headless \
    --backend vulkan --frames "${GPU_FRAMES:-3000}" --max-fps 1000 --instances "$n" --moving "${GPU_MOVING:-25}" --cube "${GPU_CUBE:-0}" \
    --stats "$out/showcase-$n.json" --screenshot "$out/showcase-$n.png" --log-level warn \
    >>"$out/logs.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "instances $n: exit $rc $(grep -o '"device": "[^"]*"' "$out/showcase-$n.json" 2>/dev/null)"
  grep -A12 '"gpu_passes"' "$out/showcase-$n.json" 2>/dev/null | tr -d ' \n' | head -c 600
  echo
done
files=()
for n in ${GPU_INSTANCES:-0 10000 100000}; do
  [ -f "$out/showcase-$n.json" ] && files+=("$out/showcase-$n.json")
done
[ ${#files[@]} -gt 0 ] &&
  GPU_CUBE="${GPU_CUBE:-0}" bash scripts/gpu_summary.sh "$(cat "$b/commit")" "${GPU_MOVING:-25}" "${files[@]}" >"$out/render.json"
ns=(${GPU_INSTANCES:-0 10000 100000})
for n in "${ns[@]:1:${#ns[@]}-2}"; do rm -f "$out/showcase-$n.png"; done
exit $status
