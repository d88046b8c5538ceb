#!/usr/bin/env bash
# `make demo`: the showcase from the release build, headless (no window
# where there is no display): the runtime tour,
# then the game for 10 s of virtual time (paced at 240 iterations per second
# of wall time, so the render thread sees most of them) with its scripted
# input, writing its stats to build/demo.json and its last frame to
# build/demo.png.
#
# The Vulkan backend is required wherever a Vulkan driver is installed (a
# GPU's, or Mesa's lavapipe, which `make deps` installs): a failure there
# fails the demo. Only a machine with no Vulkan driver at all falls back to
# the null backend, and says so loudly (no picture; scripts/check_demo.sh
# then skips the picture comparison, also loudly).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/bin
project=build/release/samples/showcase/project
"$bin/showcase" --tour
run_game() {
  "$bin/showcase" --headless --frames 600 --fixed-dt 0.0166666667 --max-fps 240 \
    --input "$project/input/demo.input" --stats build/demo.json "$@"
}
vulkan_driver_installed() {
  local d
  for d in ${VK_ICD_FILENAMES:-} ${VK_DRIVER_FILES:-} /usr/share/vulkan/icd.d/*.json \
    /etc/vulkan/icd.d/*.json; do
    [ -f "$d" ] && return 0
  done
  return 1
}
rm -f build/demo.png build/demo.json build/demo.backend
if vulkan_driver_installed; then
  if ! run_game --backend vulkan --screenshot build/demo.png "$@"; then
    echo "demo: FAILED: the Vulkan backend did not run although a Vulkan driver is installed" >&2
    echo "demo: (see the log above; lavapipe needs mesa-vulkan-drivers from bookworm-backports)" >&2
    exit 1
  fi
  echo vulkan >build/demo.backend
  echo "demo: wrote build/demo.json and build/demo.png"
else
  echo "demo: ##############################################################" >&2
  echo "demo: NO VULKAN DRIVER on this machine (no ICD file in /usr/share/vulkan/icd.d)" >&2
  echo "demo: running on the null backend: nothing is drawn, no build/demo.png" >&2
  echo "demo: ##############################################################" >&2
  run_game --backend null "$@"
  echo null >build/demo.backend
  echo "demo: wrote build/demo.json (null backend)"
fi
