#!/usr/bin/env bash
# Runs the benchmarks (they print numbers; they are not tests). Each can also
# be run alone — see the README's performance section.
#   bash scripts/bench.sh [measure|analyzer|report|viewer ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ORRERY_BUILD:-build}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
parts=("$@"); ((${#parts[@]})) || parts=(measure analyzer report viewer)
for part in "${parts[@]}"; do
  printf '\n===== benchmark: %s\n' "$part"
  case $part in
    measure)
      cmake --build "$build" --target bench_measure orrery >/dev/null
      python3 bench/measure/run_bench.py --build "$build" ;;
    analyzer)
      cmake --build "$build" --target analyzer_bench >/dev/null
      mpirun -np 2 "$build/bin/analyzer_bench" "$build/bench/analyzer-trace"
      mpirun -np 2 "$build/bin/analyzer_bench" "$build/bench/analyzer-trace-communication" \
        5000000 communication
      cmake --build "$build" --target analyzer_accuracy_app orrery orrery-analyze orrery-measure >/dev/null
      /usr/bin/python3 bench/analyzer/run_accuracy.py --build "$build"
      cmake --build "$build" --target scaling_trace orrery_mpi_byte_counter orrery-analyze >/dev/null
      /usr/bin/python3 bench/analyzer/weak_scaling.py --build "$build" ;;
    report) cmake --build "$build" --target bench_report ;;
    viewer) cmake --build "$build" --target bench_viewer ;;
    *) echo "bench.sh: unknown benchmark '$part' (measure, analyzer, report, viewer)" >&2; exit 2 ;;
  esac
done
