#!/usr/bin/env python3
"""Definition unification benchmark (issue 9): what the measurement's
unification at MPI_Finalize costs each rank, at growing rank counts.
Not a test: it asserts nothing.

    python3 bench/measure/run_unify_bench.py [--build BUILD_DIR] [--ranks 4 16 64]
                                             [--program-args COMMON OWN DUPS SPLITS]

Runs bench_unify_defs (many regions and communicators, see unify_defs.c) with
liborrery-measure preloaded, then reads each rank's `unification` entry of
measurement.json: the bytes MPI delivered into the rank's buffers during
unify() (counted at every receive, collectives included), the messages, and
the rank's CPU seconds (thread CPU time: oversubscribed runs make wall time
meaningless). Prints rank 0's figures and the largest of the other ranks, and
the encoded size of the global definitions: rank 0 writes them, so it must
receive at least that much (less its own) however unification is done.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(build, ranks, program_args, workdir):
    exp = Path(workdir) / f"exp{ranks}"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", str(ranks),
               "-x", "LD_PRELOAD=" + str(build / "lib" / "liborrery-measure.so"),
               "-x", f"ORRERY_EXPERIMENT_DIR={exp}", "-x", "ORRERY_BUFFER_SIZE=1M",
               str(build / "bench" / "measure" / "bench_unify_defs"), *program_args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    if done.returncode != 0:
        sys.exit(f"bench: failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    report = json.loads((exp / "measurement.json").read_text())
    return [entry["unification"] for entry in report["statistics"]["per_rank"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", type=Path)
    parser.add_argument("--ranks", nargs="+", type=int, default=[4, 16, 64])
    parser.add_argument("--program-args", nargs=4, default=["200", "4", "8", "4"])
    args = parser.parse_args()
    build = args.build.resolve()
    print(f"program: unify_defs {' '.join(args.program_args)} (common regions, own regions per rank, "
          "world dups, splits into groups of 4)")
    print(f"{'ranks':>5} {'rank0 bytes':>12} {'rank0 msgs':>10} {'rank0 cpu s':>11} "
          f"{'other max bytes':>15} {'other mean bytes':>16} {'other max cpu s':>15} {'sum cpu s':>9} "
          f"{'global bytes':>12} {'rank0/global':>12}")
    with tempfile.TemporaryDirectory() as workdir:
        for ranks in args.ranks:
            costs = run_once(build, ranks, args.program_args, workdir)
            others = costs[1:] or [{"bytes_received": 0, "cpu_seconds": 0.0}]
            global_bytes = costs[0].get("global_definitions_bytes", 0)
            mean = sum(c["bytes_received"] for c in others) / len(others)
            print(f"{ranks:>5} {costs[0]['bytes_received']:>12} {costs[0]['messages']:>10} "
                  f"{costs[0]['cpu_seconds']:>11.4f} {max(c['bytes_received'] for c in others):>15} "
                  f"{mean:>16.0f} {max(c['cpu_seconds'] for c in others):>15.4f} "
                  f"{sum(c['cpu_seconds'] for c in costs):>9.4f} {global_bytes:>12} "
                  f"{costs[0]['bytes_received'] / global_bytes if global_bytes else float('nan'):>12.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
