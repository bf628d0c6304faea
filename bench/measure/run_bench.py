#!/usr/bin/env python3
"""Measurement benchmark: prints the cost of Orrery's measurement next to the
published numbers of its peers. Not a test: it asserts nothing.

    python3 bench/measure/run_bench.py [--build BUILD_DIR] [--repeat N]

1. ns per Enter+Leave pair of an instrumented empty function
2. ns added per MPI call in a small-message ping-pong (2 ranks)
3. trace bytes per event on the bundled examples
4. whole-run overhead of the examples against the uninstrumented run
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEERS = {
    "pair": "EPIK 2 x 17.5 = 35 ns, Score-P 2 x 40 = 80 ns (per enter or exit: 17.5 / 40 ns)",
    "mpi": "EPIK +50 ns, Score-P +89 ns",
    "bytes": "EPIK / Score-P 12-13.5 B/event",
}


def environment():
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env


def run(command, cwd):
    """Runs a command; returns (stdout, wall seconds). Exits on failure."""
    command = [str(word) for word in command]
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=environment(),
                          timeout=600)
    wall = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"bench: failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return done.stdout, wall


def number(pattern, text):
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"bench: no '{pattern}' in output:\n{text}")
    return float(match.group(1))


class Bench:
    def __init__(self, build, repeat, workdir):
        self.build, self.repeat, self.workdir = build, repeat, workdir
        self.orrery = build / "bin" / "orrery"
        self.bench = build / "bench" / "measure"
        self.examples = build / "examples"
        self.experiments = 0

    def measured(self, launch, options=()):
        """Runs `launch` under orrery run; returns (stdout, wall, experiment)."""
        self.experiments += 1
        exp = self.workdir / f"exp{self.experiments}"
        out, wall = run([self.orrery, "run", "-o", exp, *options, "--", *launch], self.workdir)
        return out, wall, exp

    def plain(self, launch):
        return run(launch, self.workdir)

    def median_of(self, function):
        return statistics.median(function() for _ in range(self.repeat))

    def enter_leave_pair(self):
        calls = 200_000  # per window; the best of 10 windows counts
        pattern = r"([0-9.]+) ns per call"
        base = self.median_of(lambda: number(pattern, self.plain(
            ["mpirun", "-np", "1", self.bench / "bench_empty_function", calls])[0]))
        hooks = self.median_of(lambda: number(pattern, self.plain(
            ["mpirun", "-np", "1", self.bench / "bench_empty_function_instrumented", calls])[0]))
        traced = self.median_of(lambda: number(pattern, self.measured(
            ["mpirun", "-np", "1", self.bench / "bench_empty_function_instrumented", calls],
            ["--buffer", "256M"])[0]))
        clocks, _ = self.plain([self.bench / "bench_clock_cost"])
        print(f"0. one timestamp on this machine: {clocks.strip().split(': ', 1)[-1]} "
              "(an enter+leave pair takes two)")
        print(f"1. enter+leave pair of an instrumented empty function: {traced - base:.1f} ns "
              f"(call {base:.2f} ns plain, {hooks:.2f} ns with glibc's empty hooks, "
              f"{traced:.2f} ns traced; target <= 60 ns)")
        print(f"   peers: {PEERS['pair']}")

    def mpi_call(self):
        trips = 5_000  # per window; the best of 10 windows counts
        pattern = r"([0-9.]+) ns per round trip"
        launch = ["mpirun", "-np", "2", self.bench / "bench_pingpong", trips, 8]
        base = self.median_of(lambda: number(pattern, self.plain(launch)[0]))
        traced = self.median_of(lambda: number(pattern, self.measured(launch, ["--buffer", "64M"])[0]))
        print(f"2. added per MPI call (8-byte ping-pong, 2 ranks): {(traced - base) / 2:.0f} ns "
              f"(round trip {base:.0f} ns plain, {traced:.0f} ns traced; 2 calls per rank "
              "per round trip)")
        print(f"   peers: {PEERS['mpi']}")

    def examples_runs(self):
        cases = ["stencil2d", "master_worker", "stencil2d-instrumented"]
        print("3./4. the examples on 4 ranks (median of "
              f"{self.repeat}; 'in program' = MPI_Init to MPI_Finalize as the program times it,"
              " 'wall' = the whole command incl. start-up and trace writing):")
        pattern = r"([0-9.]+) s\s*$"
        for example in cases:
            launch = ["mpirun", "-np", "4", self.examples / example]
            plain_runs, traced_runs, last_exp = [], [], None
            for _ in range(self.repeat):
                out, wall = self.plain(launch)
                plain_runs.append((number(pattern, out), wall))
                out, wall, last_exp = self.measured(launch)
                traced_runs.append((number(pattern, out), wall))
            events, evt_bytes = count_events(last_exp)
            inner = [statistics.median(run[0] for run in runs) for runs in (plain_runs, traced_runs)]
            wall = [statistics.median(run[1] for run in runs) for runs in (plain_runs, traced_runs)]
            print(f"   {example:24s} {events:7d} events, {evt_bytes / max(events, 1):5.2f} B/event; "
                  f"in program {inner[0]:.3f} -> {inner[1]:.3f} s "
                  f"({100 * (inner[1] / inner[0] - 1):+.0f} %); "
                  f"wall {wall[0]:.2f} -> {wall[1]:.2f} s ({100 * (wall[1] / wall[0] - 1):+.0f} %)")
        print(f"   peers: {PEERS['bytes']}; target <= 14 B/event")


def count_events(exp):
    """(events in the trace as otf2-print lists them, bytes of the event files)."""
    done = subprocess.run(["otf2-print", exp / "traces.otf2"], capture_output=True, text=True)
    events, in_events = 0, False
    for line in done.stdout.splitlines():
        if line.startswith("=== Events"):
            in_events = True
        elif in_events and re.match(r"^[A-Z][A-Z0-9_]*\s+\d+\s+\d+", line):
            events += 1
    evt_bytes = sum(path.stat().st_size for path in (exp / "traces").glob("*.evt"))
    return events, evt_bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    build = Path(args.build).resolve()
    if not (build / "lib" / "liborrery-measure.so").exists():
        sys.exit(f"bench: {build}/lib/liborrery-measure.so missing; build orrery-measure first")
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as workdir:
        bench = Bench(build, args.repeat, Path(workdir))
        print(f"Orrery measurement benchmark ({os.cpu_count()} cores, {build})")
        bench.enter_leave_pair()
        bench.mpi_call()
        bench.examples_runs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
