#!/usr/bin/env bash
# The user guides' snippets are programs: every ```c snippet block of the
# given Markdown pages is compiled (C11, -Wall -Wextra -Werror) against the
# public headers and the built shared libzengine, and run; a page's blocks
# marked ```<lang> file=PATH are written to PATH first, in the page's own
# working folder, so a guide's project files are the ones its programs use.
#
#   check_doc_snippets.sh --cc CC --lib DIR --assets DIR --cooker EXE
#                         [--cflags=FLAGS] [--models DIR] PAGE.md...
#
# Fence grammar (the first word is the language, the rest is ours):
#   ```c snippet                    a whole program: compiled, run with no arguments
#   ```c snippet -- ARGS...         ... run with these arguments (split on spaces)
#   ```json file=mygame/project.json   written to that path before the page's programs run
# A program passes when it compiles without a warning and exits 0 within
# 120 s. Each page runs in a fresh folder holding models/ (the showcase's
# crate, --models) as a guide's reader would have copied it; the engine finds
# its assets and cooker through ZENGINE_ASSET_ROOT and ZENGINE_COOKER, as a
# game outside the tree does (docs/using.md). Exit status: 0 when every
# snippet passed, 1 when one failed (each failure named: page, line, compile
# or run, and its output) or when the pages hold no snippet at all, 2 for a
# usage error.
set -uo pipefail
cc="" lib="" assets="" cooker="" cflags="" models=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cc) cc=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --assets) assets=$2; shift 2 ;;
    --cooker) cooker=$2; shift 2 ;;
    --cflags) cflags=$2; shift 2 ;;
    --cflags=*) cflags=${1#--cflags=}; shift ;; # may be empty: CMake drops empty arguments
    --models) models=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "check_doc_snippets: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$cc" ] && [ -n "$lib" ] && [ $# -gt 0 ] || {
  echo "usage: check_doc_snippets.sh --cc CC --lib DIR --assets DIR --cooker EXE [--cflags=F] [--models DIR] PAGE.md..." >&2
  exit 2
}
[ -n "$models" ] || models=$root/samples/showcase/project/models
lib=$(cd "$lib" && pwd) || exit 2 # the rpath must not depend on the folder a program runs in
work=$(mktemp -d "${TMPDIR:-/tmp}/zengine-snippets-XXXXXX")
if [ -n "${ZE_SNIPPETS_KEEP:-}" ]; then
  echo "doc snippets: working in $work (kept)"
else
  trap 'rm -rf "$work"' EXIT
fi

failed=0 passed=0
for page in "$@"; do
  name=$(basename "$page" .md)
  dir=$work/$name
  mkdir -p "$dir/src" "$dir/run/models"
  cp "$models"/crate.gltf "$models"/crate.png "$dir/run/models/" 2>/dev/null
  # Split the page: src/NNN.c + src/NNN.args + src/NNN.line for programs,
  # files written under run/ as they come.
  awk -v out="$dir/src" -v run="$dir/run" '
    function flush_file() { close(target) }
    BEGIN { mode = ""; n = 0 }
    mode == "" && /^```c snippet( |$)/ {
      mode = "c"; n++; base = sprintf("%s/%03d", out, n)
      args = $0; if (sub(/^```c snippet -- /, "", args) == 0) args = ""
      print args > (base ".args"); close(base ".args")
      print FNR > (base ".line"); close(base ".line")
      target = base ".c"; printf "" > target; next
    }
    mode == "" && /^```[A-Za-z0-9_-]* file=/ {
      path = $0; sub(/^```[A-Za-z0-9_-]* file=/, "", path); sub(/[ \t].*$/, "", path)
      if (path ~ /(^\/|\.\.)/) { print "bad file= path: " path > "/dev/stderr"; exit 3 }
      mode = "f"; target = run "/" path
      d = target; sub(/\/[^\/]*$/, "", d); system("mkdir -p \"" d "\"")
      printf "" > target; next
    }
    mode != "" && /^```[ \t]*$/ { flush_file(); mode = ""; next }
    mode != "" { print > target; next }
    END { if (mode != "") { print "unterminated block" > "/dev/stderr"; exit 3 } }
  ' "$page" || { echo "check_doc_snippets: $page: cannot be split"; failed=$((failed + 1)); continue; }
  for src in "$dir"/src/*.c; do
    [ -e "$src" ] || continue
    base=${src%.c}
    line=$(cat "$base.line")
    where="$page:$line"
    exe=$base.exe
    # shellcheck disable=SC2086 # flags and arguments are word lists
    if ! out=$("$cc" -std=c11 -Wall -Wextra -Werror $cflags -I"$root/include" "$src" -o "$exe" \
                 -L"$lib" -lzengine -Wl,-rpath,"$lib" -lm 2>&1); then
      echo "FAIL $where: does not compile"
      echo "$out" | head -40
      failed=$((failed + 1))
      continue
    fi
    read -r -a args <"$base.args"
    st=0
    out=$(cd "$dir/run" && ZENGINE_ASSET_ROOT="$assets" ZENGINE_COOKER="$cooker" \
            timeout 120 "$exe" "${args[@]}" 2>&1) || st=$?
    if [ $st -ne 0 ]; then
      echo "FAIL $where: exit status $st"
      echo "$out" | tail -40
      failed=$((failed + 1))
      continue
    fi
    passed=$((passed + 1))
  done
done
echo "doc snippets: $passed passed, $failed failed"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || { echo "doc snippets: none found"; exit 1; }
exit 0
