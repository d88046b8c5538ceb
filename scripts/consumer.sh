#!/usr/bin/env bash
# CI's `consumer` stage: install the release build into a prefix, build
# examples/consumer against it with CMake (find_package, shared and static)
# and with pkg-config, and run the shared builds from a folder outside the
# prefix with ZENGINE_ASSET_ROOT and ZENGINE_COOKER unset: the engine must
# find its ZodiacEngine/ and the installed `zengine` cooker by itself, and
# the game must import a glTF through that cooker. Needs build/release
# (make release).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
prefix=$root/build/install
rm -rf "$prefix" build/consumer-cmake build/consumer-static
cmake --install build/release --prefix "$prefix" >build/install.log
echo "consumer: installed into $prefix ($(wc -l <build/install.log) files)"

cmake -S examples/consumer -B build/consumer-cmake -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/consumer-cmake >/dev/null
cmake -S examples/consumer -B build/consumer-static -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DZENGINE_STATIC=ON >/dev/null
cmake --build build/consumer-static >/dev/null
echo "consumer: built with find_package(zengine) (shared and static)"

mkdir -p build/consumer-pc
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --exists zengine ||
  { echo "consumer: pkg-config finds no zengine in $prefix/lib/pkgconfig"; exit 1; }
cc -std=c11 -Wall -Wextra -Werror examples/consumer/game.c \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs zengine) \
  -Wl,-rpath,"$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=libdir zengine)" \
  -o build/consumer-pc/consumer_game
echo "consumer: built with pkg-config ($(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion zengine))"
cc -std=c11 -Wall -Wextra -Werror -DCONSUMER_INSPECT examples/consumer/game.c \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs zengine-inspect zengine) \
  -Wl,-rpath,"$prefix/lib" -o build/consumer-pc/consumer_game_inspect
echo "consumer: built with pkg-config zengine-inspect zengine"

# A game that hosts no inspector links no HTTP library; one that does, does.
ldd build/consumer-pc/consumer_game | grep -c libmicrohttpd >/dev/null &&
  { echo "consumer: the game without zengine::inspect links libmicrohttpd"; exit 1; }
ldd build/consumer-cmake/consumer_game | grep -c libmicrohttpd >/dev/null ||
  { echo "consumer: the game with zengine::inspect does not link libmicrohttpd"; exit 1; }

# Both link the installed shared library (grep -c, not -q: with pipefail a
# grep that stops reading early fails the pipeline).
for exe in build/consumer-cmake/consumer_game build/consumer-pc/consumer_game; do
  lib=$(ldd "$exe" | awk '/libzengine\.so/ {print $3}')
  [ -n "$lib" ] && [ "$(realpath "$lib")" = "$(realpath "$prefix"/lib/libzengine.so)" ] ||
    { echo "consumer: $exe does not use $prefix/lib/libzengine.so"; ldd "$exe"; exit 1; }
done

run_game() { # run_game EXE NAME [EXPECTED-LINE ARGS...]: EXPECTED-LINE a grep -E pattern
  local expect=${3:-} work
  work=$(mktemp -d /tmp/zengine-consumer-XXXXXX)
  cp -r examples/consumer/project "$work/"
  mkdir -p "$work/project/models"
  cp samples/showcase/project/models/crate.gltf samples/showcase/project/models/crate.png \
    samples/showcase/project/models/LICENSE.md "$work/project/models/"
  cp "$1" "$work/game"
  local st=0
  (cd "$work" && env -u ZENGINE_ASSET_ROOT -u ZENGINE_COOKER ./game \
    --project "$work/project/project.json" --headless --frames 6000 --max-fps 200 \
    --stats "$work/stats.json" --log-level warn "${@:4}" >"$work/out.txt") || st=$?
  cat "$work/out.txt"
  grep -q '"ok": *true' "$work/stats.json" || st=1
  if [ -n "$expect" ] && ! grep -Eq "$expect" "$work/out.txt"; then
    echo "consumer: $2 did not print /$expect/"
    st=1
  fi
  [ $st -eq 0 ] && rm -rf "$work" || echo "consumer: $2 failed (kept $work)"
  return $st
}
inspect_line='^consumer: inspector on 127\.0\.0\.1:[1-9][0-9]*$'
run_game build/consumer-cmake/consumer_game "the CMake build" "$inspect_line" --inspect 0
run_game build/consumer-pc/consumer_game "the pkg-config build"
run_game build/consumer-pc/consumer_game_inspect "the pkg-config build with the inspector" \
  "$inspect_line" --inspect 0
echo "consumer: every build imported a glTF through the installed cooker; the inspector's served it"
