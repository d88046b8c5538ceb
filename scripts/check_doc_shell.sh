#!/usr/bin/env bash
# A guide's shell commands are a script: the ```sh blocks of the given
# Markdown pages run, in page order, in one bash per page (`set -euo
# pipefail`; the folder a `cd` reached and the variables a block set carry
# over to the next block), in a scratch folder, against an already-built
# tree. docs/getting-started.md is the page it was made for.
#
#   check_doc_shell.sh --build DIR PAGE.md...
#
# Fence grammar (the first word is the language, the rest is ours):
#   ```sh                 run
#   ```sh skip-ci         shown to the reader, never run here: what needs the
#                         network or root (git clone, make deps), rebuilds
#                         or runs the suite (make test, make release) or opens
#                         a window
#   ```<lang> file=PATH   written to $HOME/PATH before the page's blocks run
#                         (a game's game.c, CMakeLists.txt, project.json)
# The scratch world a page runs in: HOME is a fresh folder; ~/zengine is
# the clone as the page's reader has it, made of links to this repository's
# files except build/, whose build/release is DIR (the tree CI built: the
# `make release` the page shows is skipped). ZENGINE_ASSET_ROOT and
# ZENGINE_COOKER are unset, as in a reader's shell. A page passes when its
# script exits 0 within 300 s. Exit status: 0 when every page passed, 1 when
# one failed (named: page, the line of the block that failed, its exit
# status; the output's tail) or when the pages hold no block to run, 2 for
# a usage error.
set -uo pipefail
build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "check_doc_shell: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ -n "$build" ] && [ -d "$build" ] && [ $# -gt 0 ] || {
  echo "usage: check_doc_shell.sh --build DIR PAGE.md..." >&2
  exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zengine-docshell-XXXXXX")
if [ -n "${ZE_DOCSHELL_KEEP:-}" ]; then
  echo "doc shell: working in $work (kept)"
else
  trap 'rm -rf "$work"' EXIT
fi

failed=0 passed=0 blocks=0 skipped=0
for page in "$@"; do
  name=$(basename "$page" .md)
  home=$work/$name/home
  mkdir -p "$home/zengine/build"
  for entry in "$root"/* "$root"/.clang-format; do
    [ -e "$entry" ] || continue
    [ "$(basename "$entry")" = build ] || ln -s "$entry" "$home/zengine/"
  done
  ln -s "$build" "$home/zengine/build/release"
  script=$work/$name/page.sh
  # The page as a script: each block to run starts by saying where it is
  # (__line), so a failure names it; files are written as they come.
  awk -v home="$home" -v script="$script" -v page="$page" '
    BEGIN {
      mode = ""
      print "set -euo pipefail" > script
      print "__line=0" > script
      print "trap '\''st=$?; [ $st -eq 0 ] || echo \"FAIL " page ":$__line: exit status $st\"'\'' EXIT" > script
    }
    mode == "" && /^```(sh|bash)[ \t]*$/ { mode = "run"; printf "__line=%d\n", FNR > script; runs++; next }
    mode == "" && /^```(sh|bash) skip-ci([ \t]|$)/ { mode = "skip"; skips++; next }
    mode == "" && /^```[A-Za-z0-9_-]* file=/ {
      path = $0; sub(/^```[A-Za-z0-9_-]* file=/, "", path); sub(/[ \t].*$/, "", path)
      if (path ~ /(^\/|\.\.)/) { print "bad file= path: " path > "/dev/stderr"; exit 3 }
      mode = "file"; target = home "/" path
      d = target; sub(/\/[^\/]*$/, "", d); system("mkdir -p \"" d "\"")
      printf "" > target; next
    }
    mode == "" && /^```(sh|bash)/ { print page ":" FNR ": unknown sh fence: " $0 > "/dev/stderr"; exit 3 }
    mode != "" && /^```[ \t]*$/ { if (mode == "file") close(target); mode = ""; next }
    mode == "run" { print > script; next }
    mode == "file" { print > target; next }
    END {
      if (mode != "") { print "unterminated block" > "/dev/stderr"; exit 3 }
      print "__line=end" > script
      printf "%d %d\n", runs, skips > (script ".count")
    }
  ' "$page" || { echo "FAIL $page: cannot be split"; failed=$((failed + 1)); continue; }
  read -r runs skips <"$script.count"
  blocks=$((blocks + runs)) skipped=$((skipped + skips))
  [ "$runs" -gt 0 ] || continue
  st=0
  out=$(cd "$home" && env -u ZENGINE_ASSET_ROOT -u ZENGINE_COOKER HOME="$home" \
          timeout 300 bash "$script" 2>&1) || st=$?
  if [ $st -ne 0 ]; then
    echo "$out" | grep '^FAIL ' || echo "FAIL $page: exit status $st (timed out?)"
    echo "$out" | grep -v '^FAIL ' | tail -40
    failed=$((failed + 1))
    continue
  fi
  passed=$((passed + 1))
done
echo "doc shell: $passed page(s) passed, $failed failed ($blocks blocks to run, $skipped skip-ci)"
[ $failed -eq 0 ] || exit 1
[ $blocks -gt 0 ] || { echo "doc shell: no block to run"; exit 1; }
exit 0
