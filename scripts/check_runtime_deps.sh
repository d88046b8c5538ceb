#!/usr/bin/env bash
# The engine runtime and game programs carry no importer code: libzengine
# (.so and .a) and the showcase contain no assimp, meshoptimizer or
# stb_image symbols (stb_truetype, for fonts, is allowed) and load no
# libassimp/libmeshoptimizer/libstdc++; the importers live in zengine::cook,
# linked into the `zengine` program that runs as the child cooker. And the
# build enforces the layering: ECS and VFS tests load no Vulkan and no GLFW.
# Nor libmicrohttpd: the inspector is zengine::inspect, linked only into
# programs that host it (the `zengine` program).
# Usage: check_runtime_deps.sh BUILD_DIR
set -uo pipefail
B="${1:?build dir}"
FORBIDDEN_SYMS='aiImport|Assimp|meshopt_|stbi_|stbi__'
FORBIDDEN_LIBS='libassimp|libmeshoptimizer|libdraco|libstdc\+\+|libmicrohttpd'
bad=0
check_syms() { # FILE NM-ARGS...
  local f="$1"
  shift
  [ -e "$f" ] || { echo "missing: $f"; bad=1; return; }
  local hits
  hits=$(nm "$@" "$f" 2>/dev/null | awk '{print $NF}' | grep -E "$FORBIDDEN_SYMS" | sort -u | head -5)
  if [ -n "$hits" ]; then
    echo "$f: importer symbols:" $hits
    bad=1
  fi
}
check_libs() { # FILE PATTERN
  local hits
  hits=$(ldd "$1" 2>/dev/null | grep -E "$2" | awk '{print $1}' | tr '\n' ' ')
  if [ -n "$hits" ]; then
    echo "$1: loads $hits"
    bad=1
  fi
}
check_syms "$B/lib/libzengine.so" -D
check_syms "$B/lib/libzengine.a"
check_syms "$B/bin/showcase"
check_libs "$B/lib/libzengine.so" "$FORBIDDEN_LIBS"
check_libs "$B/bin/showcase" "$FORBIDDEN_LIBS"
n=0
for t in "$B"/bin/test_storage "$B"/bin/test_query "$B"/bin/test_snapshot "$B"/bin/test_vfs_*; do
  [ -x "$t" ] || continue
  n=$((n + 1))
  check_libs "$t" 'libvulkan|libglfw'
done
[ $n -gt 0 ] || { echo "no ECS/VFS test programs under $B/bin"; bad=1; }
# and the cooker does have them (the check would pass on an empty library)
if [ "$(nm "$B/bin/zengine" 2>/dev/null | grep -c 'meshopt_optimizeVertexCache')" = 0 ]; then
  echo "$B/bin/zengine: no meshoptimizer: is the check looking at the right files?"
  bad=1
fi
[ $bad -eq 0 ] && echo "runtime deps: libzengine, the showcase and $n ECS/VFS tests are clean"
exit $bad
