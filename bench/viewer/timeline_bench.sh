#!/usr/bin/env bash
# The timeline summary on a big generated trace (prints numbers; never a test):
#   bench/viewer/timeline_bench.sh BUILD [RANKS [EVENTS_PER_RANK]] [--events-path]
# Writes the trace with bench/analyzer's scaling_trace (16 events per iteration
# and rank; 16 x 6,250,000 = 10^8 events, ~1.1 GB) under /tmp, runs
# timeline_summary_bench on it and deletes it.
set -euo pipefail
build=${1:?usage: timeline_bench.sh BUILD [RANKS [EVENTS_PER_RANK]] [--events-path]}
ranks=${2:-16}
per_rank=${3:-6250000}
extra=${4:-}
dir=$(mktemp -d /tmp/orrery-timeline-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s.%N)
"$build/bin/scaling_trace" "$dir" "$ranks" "$per_rank"
end=$(date +%s.%N)
echo "trace: $(du -sh "$dir" | cut -f1) written in $(echo "$end - $start" | bc) s ($ranks ranks x $per_rank events)"
# shellcheck disable=SC2086
"$build/bin/timeline_summary_bench" "$dir" $extra
