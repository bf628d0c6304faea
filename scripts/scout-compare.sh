#!/usr/bin/env bash
# Runs Scalasca's trace analyzer scout (2.6, default options) on an Orrery
# experiment and prints Orrery's and scout's wait states side by side, per
# metric and rank (docs/trace-conventions.md, "Scalasca compatibility").
#
#   bash scripts/scout-compare.sh EXP [scout_compare.py options: --all, --check TOL]
#
# By hand, not in CI: scout is no Debian package (how to build it: the doc
# above). Finds scout.mpi through $SCOUT or PATH, orrery-analyze through
# $ORRERY_BUILD/bin (default build/) or PATH; analyzes EXP first when it has
# no report.h5. scout writes EXP/scout.cubex and EXP/trace.stat.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: bash scripts/scout-compare.sh EXP [--all] [--check TOLERANCE]" >&2; exit 2; }
(($# >= 1)) || usage
case $1 in -h|--help) usage ;; esac
exp=${1%/}
shift
[ -f "$exp/traces.otf2" ] || { echo "scout-compare: $exp/traces.otf2 not found (not an Orrery trace experiment)" >&2; exit 1; }
scout=${SCOUT:-$(command -v scout.mpi || true)}
[ -n "$scout" ] && [ -x "$scout" ] ||
  { echo "scout-compare: scout.mpi not found: set SCOUT=/path/to/scout.mpi (built from Scalasca 2.6)" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
ranks=$("$python" -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["ranks"]))' "$exp/measurement.json") ||
  { echo "scout-compare: cannot read the number of ranks from $exp/measurement.json" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
if [ ! -f "$exp/report.h5" ]; then
  analyze=${ORRERY_BUILD:-$here/../build}/bin/orrery-analyze
  [ -x "$analyze" ] || analyze=$(command -v orrery-analyze || true)
  [ -n "$analyze" ] || { echo "scout-compare: orrery-analyze not found (set ORRERY_BUILD)" >&2; exit 1; }
  mpirun --oversubscribe -np "$ranks" "$analyze" "$exp" >"$exp/scout-compare.analyze.log" 2>&1 ||
    { echo "scout-compare: orrery-analyze failed, see $exp/scout-compare.analyze.log" >&2; exit 1; }
fi
if ! mpirun --oversubscribe -np "$ranks" "$scout" "$exp/traces.otf2" >"$exp/scout.log" 2>&1; then
  echo "scout-compare: scout failed on $exp, see $exp/scout.log:" >&2
  grep -m3 -iE 'error|assert|abort' "$exp/scout.log" >&2 || true
  exit 1
fi
echo "scout: $(grep -m1 'SCOUT' "$exp/scout.log") ran to the end on $exp ($ranks ranks)"
exec "$python" "$here/scout_compare.py" "$exp/report.h5" "$exp/scout.cubex" "$@"
