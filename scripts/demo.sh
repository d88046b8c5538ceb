#!/usr/bin/env bash
# Runs the showcase sample from the release build. Headless: it opens no
# window where there is no display.
set -euo pipefail
cd "$(dirname "$0")/.."
exec build/release/bin/showcase "$@"
