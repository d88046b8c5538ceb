#!/usr/bin/env bash
# Makes build/gpu-bundle/: what a GPU machine without Debian packages needs
# to run the release showcase and `zengine` on its own Vulkan driver: the
# programs, ZodiacEngine/, the showcase project, every shared library `ldd`
# lists (except the C library's own), and the Debian packages of the Vulkan
# loader and GL dispatch (libvulkan1, libegl1, libglvnd0, libgl1, libglx0,
# libgles2, libopengl0, downloaded as .deb files and unpacked there).
# scripts/gpu_run.sh runs on that machine over the bundle:
#   bash scripts/gpu_bundle.sh            (here, after `make release`)
#   device run: bash scripts/gpu_run.sh   (carry build/gpu-bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
rel=build/release
out=build/gpu-bundle
[ -x "$rel/bin/showcase" ] && [ -x "$rel/bin/zengine" ] || { echo "gpu_bundle: make release first"; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/deb"
cp "$rel/bin/showcase" "$rel/bin/zengine" "$out/bin/"
cp -r "$rel/bin/ZodiacEngine" "$out/bin/"
cp -r "$rel/samples/showcase/project" "$out/project"
rm -rf "$out/project/.zengine"
for exe in "$out/bin/showcase" "$out/bin/zengine"; do
  ldd "$exe" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) continue ;;
    esac
    cp -Ln "$lib" "$out/lib/" 2>/dev/null || true
  done
done
apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/zengine-apt-lists)
mkdir -p /tmp/zengine-apt-lists/partial
if ! (cd "$out/deb" && apt-get "${apt_opts[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 \
  libgl1 libglx0 libgles2 >/dev/null 2>&1); then
  apt-get "${apt_opts[@]}" update >/dev/null
  (cd "$out/deb" && apt-get "${apt_opts[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 \
    libgl1 libglx0 libgles2 >/dev/null)
fi
git rev-parse --short HEAD >"$out/commit"
du -sh "$out"
