#!/usr/bin/env bash
# The README's first command: installs the Debian packages, builds Orrery,
# then measures, analyzes and summarizes the bundled stencil example
# (4 ranks, one of them deliberately slow):
#   orrery run -o EXP -- mpirun -np 4 stencil2d --delay-us 1000
#   mpirun -np 4 orrery-analyze EXP
#   orrery stat EXP/report.h5
# The experiment goes to $ORRERY_DEMO_DIR (default: a fresh directory under
# /tmp). ORRERY_DEMO_SKIP_BUILD=1 skips steps 1-2 for an existing build.
# Each step says what it runs and, if it fails, which step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${ORRERY_BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac

step() { printf '\n== demo step %s\n' "$*"; }
fail() {
  printf '\ndemo: FAILED at step %s\n' "$1" >&2
  [ $# -gt 1 ] && printf 'demo: %s\n' "$2" >&2
  exit 1
}

if [ "${ORRERY_DEMO_SKIP_BUILD:-0}" != 1 ]; then
  step "1/5: installing packages (scripts/install-deps.sh)"
  bash scripts/install-deps.sh || fail "1/5 (install packages)"

  step "2/5: building into $build (scripts/build.sh)"
  ORRERY_BUILD=$build bash scripts/build.sh || fail "2/5 (build)"
fi

# MPI as root (containers, CI) needs OpenMPI's consent; 4 ranks on fewer
# cores need oversubscription, and yielding keeps waiting ranks polite.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export PATH="$build/bin:$PATH"
example=$build/examples/stencil2d
for tool in "$build/bin/orrery" "$build/bin/orrery-analyze" "$example" "$build/lib/liborrery-measure.so"; do
  [ -e "$tool" ] || fail "2/5 (build)" "$tool was not built"
done

demo=${ORRERY_DEMO_DIR:-$(mktemp -d /tmp/orrery-demo.XXXXXX)}
mkdir -p "$demo" || fail "3/5 (measure)" "cannot create $demo"
exp=$demo/stencil2d_4
[ -e "$exp" ] && fail "3/5 (measure)" "$exp exists already; remove it or set ORRERY_DEMO_DIR"

# The slow rank (3) also sleeps 1 ms per iteration: a delay that does not
# compete for cores, so its neighbours' Late Sender time stays clear even
# with more ranks than cores.
step "3/5: measuring: orrery run -o $exp -- mpirun -np 4 $example --delay-us 1000"
orrery run -o "$exp" -- mpirun -np 4 "$example" --delay-us 1000 || fail "3/5 (measure with orrery run)"

step "4/5: analyzing: mpirun -np 4 orrery-analyze $exp"
mpirun -np 4 orrery-analyze "$exp" || fail "4/5 (analyze with orrery-analyze)"
[ -f "$exp/report.h5" ] || fail "4/5 (analyze)" "no $exp/report.h5 was written"

step "5/5: where the time went: orrery stat $exp/report.h5"
orrery stat "$exp/report.h5" || fail "5/5 (orrery stat)"

printf '\ndemo: done. The experiment is %s\n' "$exp"
printf 'Browse it with:   %s/bin/orrery view %s/report.h5\n' "$build" "$exp"
printf 'The call tree:    %s/bin/orrery tree %s/report.h5 --metric late_sender\n' "$build" "$exp"
