#!/usr/bin/env bash
# Configures and builds Orrery into ${ORRERY_BUILD:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ORRERY_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${ORRERY_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
