#!/usr/bin/env bash
# Repeats the pipeline's two runs once more each (pipeline_reports.sh made the
# first ones), so that the groups view has two runs per group: the stencil
# with a slow rank (baseline) and without (candidate). The repeats record
# their settings with --param, as users choose groups by them; the slow repeat
# records resource samples (--sampling-interval) for the resource curves.
# usage: group_reports.sh ORRERY ORRERY_ANALYZE MPIEXEC STENCIL OUTDIR
set -euo pipefail
orrery=$1 analyze=$2 mpiexec=$3 stencil=$4 out=$5
rm -rf "$out"
mkdir -p "$out"
"$orrery" run -o "$out/slow2" --param delay_us=1000 --sampling-interval 5 -- "$mpiexec" -np 4 "$stencil" --delay-us 1000
"$mpiexec" -np 4 "$analyze" "$out/slow2"
"$orrery" run -o "$out/even2" --param delay_us=0 -- "$mpiexec" -np 4 "$stencil"
"$mpiexec" -np 4 "$analyze" "$out/even2"
test -f "$out/slow2/report.h5" && test -f "$out/even2/report.h5"
