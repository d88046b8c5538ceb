#!/usr/bin/env bash
# Installs every Debian 12 package ZEngine needs (DESIGN.md §7), idempotently.
# Fast when everything is present: apt-get update runs only when something is
# missing. Mesa's lavapipe comes from <codename>-backports (descriptor
# indexing); that suite's sources entry is derived from the system's own
# Debian sources so no host name is ever written here.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang clang-format
  libclang-rt-14-dev llvm
  # base / tests
  libcmocka-dev libjansson-dev libcglm-dev libxxhash-dev uuid-dev zlib1g-dev
  # assets
  libstb-dev libassimp-dev libmeshoptimizer-dev libdraco-dev
  # bench: the Dear ImGui baseline of bench_ui (one C++ reference file)
  libimgui-dev
  # gfx / window / fonts
  libvulkan-dev vulkan-tools vulkan-validationlayers glslc libglfw3-dev
  fonts-dejavu-core xvfb xauth
  # the inspector (zengine::inspect); its page's test runs a real browser
  libmicrohttpd-dev chromium-headless-shell
)
BACKPORTS_PACKAGES=(mesa-vulkan-drivers)

. /etc/os-release
CODENAME="${VERSION_CODENAME:-bookworm}"
BPO_FILE=/etc/apt/sources.list.d/zengine-backports.sources

have_backports_source() {
  grep -rqs -- "${CODENAME}-backports" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

# Derive a deb822 stanza for <codename>-backports from the first existing
# stanza (deb822 or one-line format) that serves plain <codename>.
add_backports_source() {
  local tmp
  tmp=$(mktemp)
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    awk -v cn="$CODENAME" '
      BEGIN { RS=""; FS="\n"; done=0 }
      {
        if (done) next
        suites=""; for (i = 1; i <= NF; i++) if ($i ~ /^Suites:/) suites=$i
        if (suites ~ ("[ :]" cn "( |$)")) {
          for (i = 1; i <= NF; i++) {
            if ($i ~ /^Suites:/) print "Suites: " cn "-backports"
            else if ($i !~ /^#/) print $i
          }
          done=1
        }
      }' /etc/apt/sources.list.d/debian.sources >"$tmp"
  fi
  if [ ! -s "$tmp" ] && [ -f /etc/apt/sources.list ]; then
    awk -v cn="$CODENAME" '
      $1 == "deb" && $0 ~ (" " cn " ") && !done {
        uri = ""; for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { uri = $i; break }
        print "Types: deb"; print "URIs: " uri; print "Suites: " cn "-backports"
        print "Components: main"; done = 1
      }' /etc/apt/sources.list >"$tmp"
  fi
  if [ ! -s "$tmp" ]; then
    echo "deps: no Debian sources entry for ${CODENAME} found to derive backports from" >&2
    rm -f "$tmp"
    return 1
  fi
  $SUDO install -m 0644 "$tmp" "$BPO_FILE"
  rm -f "$tmp"
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
need_bpo=0
for p in "${BACKPORTS_PACKAGES[@]}"; do
  v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null || true)
  case "$v" in
    *"ok installed"*bpo*) ;;
    *) need_bpo=1 ;;
  esac
done

if [ ${#missing[@]} -eq 0 ] && [ $need_bpo -eq 0 ]; then
  echo "deps: all packages present"
  exit 0
fi

have_backports_source || add_backports_source
export DEBIAN_FRONTEND=noninteractive
# Another apt (a second `make deps` started at the same time, unattended
# upgrades) holds the dpkg lock: wait for it rather than fail.
APT=(apt-get -o DPkg::Lock::Timeout=900)
$SUDO "${APT[@]}" update -q
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  $SUDO "${APT[@]}" install -y -q --no-install-recommends "${missing[@]}"
fi
if [ $need_bpo -eq 1 ]; then
  echo "deps: installing ${BACKPORTS_PACKAGES[*]} from ${CODENAME}-backports"
  $SUDO "${APT[@]}" install -y -q --no-install-recommends -t "${CODENAME}-backports" "${BACKPORTS_PACKAGES[@]}"
fi
echo "deps: done"
