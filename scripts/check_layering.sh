#!/usr/bin/env bash
# DESIGN.md §2: lower layers never include higher ones. Checks every
# #include "zengine/<module>.h" in src/<module>/ and include/zengine/<module>.h
# against the table of who may use whom.
set -uo pipefail
cd "$(dirname "$0")/.."
declare -A ALLOWED=(
  [base]=""
  [mem]="base"
  [job]="base mem"
  [ecs]="base mem job"
  [vfs]="base mem job"
  [asset]="base mem job vfs ecs"
  [cook]="base mem job vfs ecs asset"
  [gfx]="base mem job vfs asset"
  [ui]="base mem gfx"
  [engine]="base mem job ecs vfs asset gfx ui"
  [inspect]="base mem job ecs vfs asset gfx ui engine"
)
bad=0
checked=0
for mod in "${!ALLOWED[@]}"; do
  files=()
  [ -d "src/$mod" ] && while IFS= read -r -d '' f; do files+=("$f"); done < <(find "src/$mod" -name '*.[ch]' -print0)
  [ -f "include/zengine/$mod.h" ] && files+=("include/zengine/$mod.h")
  for f in "${files[@]}"; do
    checked=$((checked + 1))
    for used in $(grep -oE '#include[[:space:]]+[<"]zengine/[a-z_]+\.h[>"]' "$f" | sed -E 's/.*zengine\/([a-z_]+)\.h.*/\1/' | sort -u); do
      [ "$used" = "$mod" ] && continue
      [ "$used" = zengine ] && { echo "$f: includes the umbrella header"; bad=1; continue; }
      case " ${ALLOWED[$mod]} " in
        *" $used "*) ;;
        *) echo "$f: module '$mod' may not use '$used'"; bad=1 ;;
      esac
    done
  done
done
echo "layering: checked $checked files"
exit $bad
