#!/usr/bin/env bash
# Fuzzing and sanitizers (docs/robustness.md).
#
#   bash scripts/fuzz.sh [RUNS]     builds build-fuzz (clang, ASan + UBSan +
#                                   libFuzzer), replays tests/corpus/, runs each
#                                   fuzz target RUNS inputs (default 2000), then
#                                   the sanitized unit tests
#   ORRERY_FUZZ_SECONDS=3600 bash scripts/fuzz.sh   the long run: time per target
#
# Needs the main build (scripts/build.sh) for the seeds. A crash, a sanitizer
# report, a hang (> 10 s) or an allocation above 64 MiB fails the run and
# leaves the input in build-fuzz/findings/; add such inputs to tests/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2000}
main_build=${ORRERY_BUILD:-build}
fuzz_build=${ORRERY_FUZZ_BUILD:-build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ cmake -S . -B "$fuzz_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORRERY_FUZZ=ON \
  -DORRERY_WERROR=ON -DORRERY_BUILD_BENCHMARKS=OFF -DORRERY_BUILD_VIEWER_FRONTEND=OFF \
  "${launcher[@]}" >/dev/null
cmake --build "$fuzz_build" -j "$(nproc)" --target fuzz_report_reader fuzz_trace_reader \
  fuzz_metadata report_unit_tests measure_unit_tests

seeds="$fuzz_build/seeds"
rm -rf "$seeds"
/usr/bin/python3 tests/fuzz/make_seeds.py "$main_build" "$seeds"
findings="$fuzz_build/findings"
mkdir -p "$findings"
export ORRERY_FUZZ_TRACE_TEMPLATE="$seeds/template"
# Allocations above 64 MiB return null (as the tools' address-space cap makes
# them fail), so HDF5 reports them instead of zero-filling gigabytes.
export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
budget=(-runs="$runs")
[ -n "${ORRERY_FUZZ_SECONDS:-}" ] && budget=(-max_total_time="$ORRERY_FUZZ_SECONDS")
for target in report_reader trace_reader metadata; do
  corpus="$fuzz_build/corpus/$target"
  mkdir -p "$corpus"
  case $target in
    report_reader) seed_dir="$seeds/report" ;;
    trace_reader) seed_dir="$seeds/trace" ;;
    metadata) seed_dir="$seeds/metadata" ;;
  esac
  echo "fuzz: $target"
  log="$fuzz_build/fuzz_$target.log"
  status=0
  "$fuzz_build/bin/fuzz_$target" -seed=1 "${budget[@]}" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -artifact_prefix="$findings/$target-" -print_final_stats=1 \
    "$corpus" "$seed_dir" >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz: $target failed (exit $status); the input is in $findings/" >&2
    exit 1
  fi
done
# The sanitized unit tests (the MPI and end-to-end suites: scripts/fuzz.sh is
# not their place; docs/robustness.md has the full sanitizer run).
ctest --test-dir "$fuzz_build" -R '^(report|measure)\.' -j "$(nproc)" --output-on-failure
