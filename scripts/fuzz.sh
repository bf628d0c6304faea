#!/usr/bin/env bash
# Fuzzing and sanitizers (docs/robustness.md).
#
#   bash scripts/fuzz.sh [SECONDS]  builds build-fuzz (clang, ASan + UBSan +
#                                   libFuzzer), fuzzes each reader SECONDS
#                                   (default 20), triages what it found, then
#                                   runs the sanitized unit tests
#   bash scripts/fuzz.sh 3600       the long run: an hour per reader
#
# Needs the main build (scripts/build.sh) for the seeds. Fuzzing runs in
# libFuzzer's fork mode, so one finding does not end the run; afterwards each
# finding is replayed: a crash whose every frame up to our call into HDF5 is
# inside libhdf5 is an HDF5 defect the tools contain (their crash guard
# answers with one line and exit 1; it is listed, not fatal). Anything else --
# a crash in our code, a sanitizer report, a hang (> 10 s), an allocation above
# 64 MiB -- fails the run and leaves the input in build-fuzz/findings/; add
# such inputs to tests/corpus/.
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
seconds=${1:-${ORRERY_FUZZ_SECONDS:-20}}
# Replays one finding; prints "hdf5" if the sanitizer's first frame below the
# memory interceptors is inside libhdf5 (an HDF5 defect), "clean" if the input
# alone runs clean (the crash needed an earlier input's leftovers in the same
# process, which the targets now rule out by resetting HDF5 after each input),
# else "ours". The replay crashes (non-zero exit), so its output is taken
# first: under pipefail a pipeline from it would always fail. Frames of the
# sanitizer's interceptors and of libc's memory and I/O functions (memcpy and
# its __memcpy_avx512_* variants; clang 14's interceptors also appear under the
# plain names, e.g. "in pread", "in strdup" called from HDF5) are skipped: the
# caller decides.
classify() {
  local binary=$1 input=$2 output status=0
  # Bounded like the fuzzing (-timeout=10): a replay must not hang the run.
  output=$(timeout 60 "$binary" "$input" 2>&1) || status=$?
  if [ "$status" -eq 0 ]; then
    echo clean
    return
  fi
  whose_frame <<<"$output"
}
# "hdf5" if the first frame of the sanitizer report on standard input below
# the memory interceptors is inside libhdf5, else "ours".
whose_frame() {
  local first
  first=$(grep -E '^ +#[0-9]+ ' |
    grep -vE '__interceptor_|__asan_|in _{0,2}(memcpy|memmove|memset|memcmp|strlen|strnlen|strdup|strndup|strcpy|strncpy|strcmp|strncmp|malloc|calloc|realloc|free|pread|pread64|read|write|fread|fwrite)( |_)|sysdeps/|libc\.so' |
    head -n 1 || true)
  case $first in
    *libhdf5*) echo hdf5 ;;
    *) echo ours ;;
  esac
}
# For a crash that does not reproduce alone: "hdf5" if every sanitizer
# error report the fuzzing processes wrote to directory $1 is inside libhdf5
# (an HDF5 defect that needs an earlier input), "none" if none was written,
# else "ours" (then the crash is ours too, or cannot be told apart from
# ours: the run fails).
whose_reports() {
  local report any=none
  for report in $(grep -lE '==ERROR|runtime error' "$1"/* 2>/dev/null); do
    any=hdf5
    # The report's first stack only (not its "freed by" / "allocated by" ones).
    if [ "$(awk '/^ +#0 /{n++} n==1' "$report" | whose_frame)" != hdf5 ]; then
      echo ours
      return
    fi
  done
  echo "$any"
}
# The head of each sanitizer error report in directory $1 (its error, the
# first frames, its summary), at most five; the allocator's warnings about
# refused allocations (allocator_may_return_null) are not errors.
print_sanitizer_reports() {
  local report shown=0
  for report in $(grep -lE '==ERROR|runtime error' "$1"/* 2>/dev/null); do
    [ "$shown" -lt 5 ] || break
    echo "  $report:"
    grep -E '==ERROR|runtime error|SUMMARY|^ +#[0-9] ' "$report" | head -n 14 | sed 's/^/    /' || true
    shown=$((shown + 1))
  done
  [ "$shown" -gt 0 ] || echo "    (none written)"
}
failed=0
for target in report_reader trace_reader metadata; do
  corpus="$fuzz_build/corpus/$target"
  mkdir -p "$corpus"
  case $target in
    report_reader) seed_dir="$seeds/report" ;;
    trace_reader) seed_dir="$seeds/trace" ;;
    metadata) seed_dir="$seeds/metadata" ;;
  esac
  log="$fuzz_build/fuzz_$target.log"
  rm -f "$findings/$target-"*
  # Every process's sanitizer report goes to its own file (log_path.PID):
  # fork mode drops the children's output, so a crash that needs an earlier
  # input of the same child (and does not reproduce alone) keeps its stack.
  sanitizer_logs="$fuzz_build/sanitizer-logs/$target"
  rm -rf "$sanitizer_logs"
  mkdir -p "$sanitizer_logs"
  ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$sanitizer_logs/asan" \
  UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$sanitizer_logs/ubsan" \
  "$fuzz_build/bin/fuzz_$target" -seed=1 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -artifact_prefix="$findings/$target-" \
    "$corpus" "$seed_dir" >"$log" 2>&1 || true
  inputs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  contained=0 unreproducible=0
  for finding in "$findings/$target-"*; do
    [ -e "$finding" ] || continue
    kind=$(basename "$finding"); kind=${kind#"$target-"}; kind=${kind%%-*}
    verdict=ours
    [ "$kind" = crash ] && verdict=$(classify "$fuzz_build/bin/fuzz_$target" "$finding")
    if [ "$verdict" = hdf5 ]; then
      contained=$((contained + 1))
      mkdir -p "$findings/hdf5"
      mv "$finding" "$findings/hdf5/"
    elif [ "$verdict" = clean ] && [ "$(whose_reports "$sanitizer_logs")" != ours ]; then
      unreproducible=$((unreproducible + 1))
      mkdir -p "$findings/unreproducible"
      mv "$finding" "$findings/unreproducible/"
      echo "fuzz: $target: crash on $finding does not reproduce alone; the fuzzing processes' sanitizer reports, none of them in our code (kept, not fatal; $sanitizer_logs):" >&2
      print_sanitizer_reports "$sanitizer_logs" >&2
    elif [ "$verdict" = clean ]; then
      echo "fuzz: $target: crash on $finding does not reproduce alone, and a fuzzing process's sanitizer report is in our code ($sanitizer_logs):" >&2
      print_sanitizer_reports "$sanitizer_logs" >&2
      failed=1
    else
      echo "fuzz: $target: $kind on $finding" >&2
      # A timeout's replay would run as long as it hangs: bounded, and said so.
      timeout 60 "$fuzz_build/bin/fuzz_$target" "$finding" 2>&1 | grep -E '==ERROR|SUMMARY|^ +#[0-9] ' | head -n 12 >&2 ||
        echo "fuzz: $target: its replay did not end within 60 s or found nothing to print" >&2
      failed=1
    fi
  done
  echo "fuzz: $target: ${inputs:-0} inputs in ${seconds} s, $contained crash(es) inside HDF5 contained (build-fuzz/findings/hdf5/), $unreproducible not reproducible alone (build-fuzz/findings/unreproducible/)"
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: findings above; their inputs are in $findings/" >&2
  exit 1
fi
# The sanitized unit tests (the MPI and end-to-end suites: scripts/fuzz.sh is
# not their place; docs/robustness.md has the full sanitizer run).
ctest --test-dir "$fuzz_build" -R '^(report|measure)\.' -E '\.(e2e|wrappers|unify)\.' -j "$(nproc)" --output-on-failure
