#!/usr/bin/env bash
# Runs a browser test; skips (77) only when node or chromium is truly absent.
set -euo pipefail
chromium=${ORRERY_CHROMIUM:-/usr/bin/chromium}
if ! command -v node >/dev/null 2>&1; then echo "SKIP: node is not installed"; exit 77; fi
if [ ! -x "$chromium" ]; then echo "SKIP: $chromium is not installed"; exit 77; fi
exec node "$(dirname "$0")/$1" "${@:2}"
