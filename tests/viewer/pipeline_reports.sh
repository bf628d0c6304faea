#!/usr/bin/env bash
# Produces two reports through the whole pipeline (orrery run + orrery-analyze)
# and a what-if replay of the first
# for the browser tests: the stencil example with a slow rank, and without.
# usage: pipeline_reports.sh ORRERY ORRERY_ANALYZE MPIEXEC STENCIL OUTDIR
set -euo pipefail
orrery=$1 analyze=$2 mpiexec=$3 stencil=$4 out=$5
rm -rf "$out"
mkdir -p "$out"
"$orrery" run -o "$out/slow" -- "$mpiexec" -np 4 "$stencil" --delay-us 1000
"$mpiexec" -np 4 "$analyze" "$out/slow"
# The same trace replayed on an ideal network: a what-if report beside it.
"$mpiexec" -np 4 "$analyze" "$out/slow" --what-if ideal -o "$out/slow/what_if.h5"
"$orrery" run -o "$out/even" -- "$mpiexec" -np 4 "$stencil"
"$mpiexec" -np 4 "$analyze" "$out/even"
test -f "$out/slow/report.h5" && test -f "$out/slow/what_if.h5" && test -f "$out/even/report.h5"
