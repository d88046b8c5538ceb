#!/usr/bin/env bash
# malloc and friends appear only in src/mem/: every other object file of the
# build (library, tests, benchmarks, samples, fuzz targets) must not reference
# them. Usage: check_alloc_symbols.sh BUILD_DIR
set -uo pipefail
BUILD="${1:?build dir}"
FORBIDDEN='^(malloc|calloc|realloc|free|strdup|strndup|reallocarray|aligned_alloc|posix_memalign)(@.*)?$'
checked=0
bad=0
while IFS= read -r -d '' obj; do
  case "$obj" in
    */src/mem/* | */ze_mem_obj.dir/* | */zengine_obj.dir/mem/*) continue ;; # the one place allowed
    */CMakeFiles/[0-9]*/*) continue ;; # CMake's compiler-identification objects
  esac
  checked=$((checked + 1))
  hits=$(nm -u "$obj" 2>/dev/null | awk '{print $NF}' | grep -E "$FORBIDDEN" || true)
  if [ -n "$hits" ]; then
    echo "FORBIDDEN allocator symbols in $obj:" $hits
    bad=$((bad + 1))
  fi
done < <(find "$BUILD" -name '*.o' -print0)
echo "checked $checked object files outside src/mem/"
[ $checked -gt 0 ] || { echo "no object files found under $BUILD"; exit 1; }
[ $bad -eq 0 ]
