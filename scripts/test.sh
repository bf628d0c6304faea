#!/usr/bin/env bash
# The README's test command: install dependencies, build with warnings as
# errors, run every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
ORRERY_CMAKE_ARGS="-DORRERY_WERROR=ON ${ORRERY_CMAKE_ARGS:-}" bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir "${ORRERY_BUILD:-build}" --output-on-failure -j 2 "$@"
# Fuzzing and sanitizers (docs/robustness.md): 20 s of fuzzing per reader
# (seeded with tests/corpus/), the unit suites under ASan + UBSan.
# ORRERY_FUZZ_IN_TESTS=0 skips this stage.
if [ "${ORRERY_FUZZ_IN_TESTS:-1}" != 0 ]; then
  bash scripts/fuzz.sh "${ORRERY_FUZZ_SECONDS:-20}"
fi
