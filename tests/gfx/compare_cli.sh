#!/usr/bin/env bash
# `zengine compare` (the demo gate's picture check), against real images:
# an image matches itself; a rendered Box does not match the lit sphere
# reference of the same size (exit 1, "DIFFERENT"); images of different
# sizes, a missing file and a file that is not an image fail with a reason;
# bad arguments exit 2. Usage: compare_cli.sh ZENGINE DATA_DIR ASSETS_DIR
set -uo pipefail
zengine="$1" data="$2" assets="$3"
tmp=$(mktemp -d /tmp/zengine-compare-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # expect STATUS PATTERN -- command...
  local want="$1" pattern="$2"
  shift 3
  local out st
  out=$("$@" 2>&1)
  st=$?
  if [ "$st" -ne "$want" ] || ! grep -qE "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $st (want $want), output: $out (want /$pattern/)"
    fails=$((fails + 1))
  else
    echo "ok: $* -> $st: $out"
  fi
}
ref="$data/sphere_ref.png"
expect 0 "0 pixels .* match" -- "$zengine" compare "$ref" "$ref"
expect 0 "match" -- "$zengine" compare "$ref" "$ref" --tolerance 0 --max-differing 0
if "$zengine" render "$assets/gltf/Box/glTF/Box.gltf" --out "$tmp/box.png" --size 256x256 \
  >"$tmp/render.log" 2>&1; then
  expect 1 "DIFFERENT" -- "$zengine" compare "$tmp/box.png" "$ref"
  # everything may differ: the same pair then matches
  expect 0 "match" -- "$zengine" compare "$tmp/box.png" "$ref" --max-differing 100
else
  echo "FAIL: zengine render Box.gltf: $(cat "$tmp/render.log")"
  fails=$((fails + 1))
fi
"$zengine" render "$assets/gltf/Box/glTF/Box.gltf" --out "$tmp/small.png" --size 64x32 \
  >/dev/null 2>&1
expect 1 "is 64x32, .* is 256x256" -- "$zengine" compare "$tmp/small.png" "$ref"
expect 1 "No such file" -- "$zengine" compare "$tmp/absent.png" "$ref"
printf 'not an image' >"$tmp/text.png"
expect 1 "text.png" -- "$zengine" compare "$tmp/text.png" "$ref"
expect 2 "usage" -- "$zengine" compare "$ref"
expect 2 "0-255" -- "$zengine" compare "$ref" "$ref" --tolerance 300
[ "$fails" -eq 0 ] && echo "compare_cli: all checks passed" || echo "compare_cli: $fails failed"
[ "$fails" -eq 0 ]
