#!/usr/bin/env python3
"""OpenMP measurement benchmark (issue 14): prints, for 1, 2 and 4 threads,
what measurement adds per parallel region, per barrier and per Enter+Leave
pair on the master and on worker threads. Not a test: it asserts nothing.

    python3 bench/measure/run_omp_bench.py [--build BUILD_DIR] [--repeat N]

Both runs use LLVM's libomp (the baseline preloads it as `orrery run` does),
so the difference is the measurement's: OMPT callbacks, clock reads and
buffer writes. An uncontended omp_set_lock records one "omp_set_lock" region
instance (an Enter+Leave pair) on the calling thread's own location.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

KEYS = ["parallel_region_ns", "barrier_ns", "lock_pair_master_ns", "lock_pair_worker_ns"]


def run(command, env):
    done = subprocess.run([str(w) for w in command], capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        sys.exit("bench: failed (%d): %s\n%s" % (done.returncode, " ".join(map(str, command)), done.stderr[-2000:]))
    return {k: float(v) for k, v in re.findall(r"^(\w+) ([\d.]+)$", done.stdout, re.M)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    build = Path(args.build).resolve()
    program = build / "bench" / "measure" / "bench_omp_cost"
    libomp = os.environ.get("ORRERY_LIBOMP", "/usr/lib/x86_64-linux-gnu/libomp.so.5")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    mpirun = ["mpirun", "-np", "1"]
    print("%-8s %-22s %12s %12s %12s" % ("threads", "ns per", "baseline", "measured", "added"))
    with tempfile.TemporaryDirectory() as work:
        for threads in (1, 2, 4):
            base = run(mpirun + ["-x", "LD_PRELOAD=" + libomp, program, threads, args.repeat], env)
            exp = Path(work) / ("exp%d" % threads)
            measured = run([build / "bin" / "orrery", "run", "-o", exp, "--"] + mpirun +
                           [program, threads, args.repeat], env)
            for key in KEYS:
                if threads == 1 and key == "lock_pair_worker_ns":
                    continue
                print("%-8d %-22s %12.1f %12.1f %12.1f" % (threads, key[:-3], base[key], measured[key],
                                                           measured[key] - base[key]))


if __name__ == "__main__":
    main()
