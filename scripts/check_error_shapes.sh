#!/usr/bin/env bash
# One way to report a failure (issue 16 item 5): public functions return
# ze_result and say why through a diagnostics sink (ze_diag_sink_t). This
# finds, in the public headers, the shapes that replaced it before: error
# text out-parameters (`char err[160]`, `char *err`), error structs and
# error enums of a module's own, report structs holding message strings,
# and "last error" getters.
# Usage: check_error_shapes.sh [HEADER_DIR] (default: include/zengine).
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-include/zengine}
bad=0
report() { echo "$1: $2"; bad=1; }
shopt -s nullglob
files=("$dir"/*.h)
[ ${#files[@]} -gt 0 ] || { echo "check_error_shapes: no headers in $dir"; exit 2; }
for f in "${files[@]}"; do
  while IFS= read -r hit; do
    report "$f:${hit%%:*}" "error text out-parameter: ${hit#*:} (report through a ze_diag_sink_t)"
  done < <(grep -nP '(?<!const )\bchar\s*\*?[[:space:]]*(err|error|errbuf|errmsg|reason|why)[a-z_]*[[:space:]]*(\[[^]]*\])?[[:space:]]*[,)]' "$f")
  while IFS= read -r hit; do
    report "$f:${hit%%:*}" "error struct or enum of its own: ${hit#*:} (use ze_result and the sink)"
  done < <(grep -nE 'typedef[[:space:]]+(struct|enum)[[:space:]]+ze_[a-z0-9_]*_(error|err|diag)(_t)?\b' "$f")
  while IFS= read -r hit; do
    report "$f:${hit%%:*}" "message strings in a struct: ${hit#*:} (report each through the sink)"
  done < <(grep -nE '^[[:space:]]+char[[:space:]]+(messages|errors|problems|warnings)[[:space:]]*\[' "$f")
  while IFS= read -r hit; do
    report "$f:${hit%%:*}" "last-error getter: ${hit#*:} (report through the sink when it happens)"
  done < <(grep -nE 'const[[:space:]]+char[[:space:]]*\*[[:space:]]*ze_[a-z0-9_]*_error[[:space:]]*\(' "$f")
done
if [ $bad -ne 0 ]; then
  echo "check_error_shapes: FAILED (docs/errors.md: one way to report a failure)"
  exit 1
fi
echo "check_error_shapes: ${#files[@]} headers, no error text out-parameters, error structs or last-error getters"
