#!/usr/bin/env python3
"""Prediction against reality on one machine (issue 11): the what-if replay of
the bundled stencil on this machine's own measured network must predict the
run time the trace recorded.

    python3 bench/analyzer/what_if_accuracy.py --build build [--ranks 2] [--repeat 3]

1. Measures the machine's latency and bandwidth with bench_pingpong (best of
   10 windows): L = half the 8-byte round trip, B = 1 MiB / (half the 1 MiB
   round trip - L).
2. Traces the stencil (`orrery run`), analyzes it with `--what-if
   latency=L,bandwidth=B` and reads the summary's line "What if MODEL:
   predicted run time P s (measured M s, ...)".
3. Prints L, B, measured, predicted and the error per repetition.

Each rank needs a core of its own: on an oversubscribed node the time a rank
waits for its partner to be scheduled is recorded as MPI time, which no
network model reproduces (docs/analyzer.md, "What if").
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def environment():
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def round_trip_ns(build, size):
    """Best-of-10 round trip of `size` bytes between two ranks, in ns."""
    trips = "20000" if size <= 64 else "200"
    out = subprocess.run(["mpirun", "--oversubscribe", "-np", "2",
                          os.path.join(build, "bench", "measure", "bench_pingpong"), trips,
                          str(size), "10"],
                         check=True, capture_output=True, text=True, env=environment()).stdout
    match = re.search(r"([0-9.]+) ns per round trip", out)
    if not match:
        sys.exit("what_if_accuracy: cannot read bench_pingpong's output: " + out)
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stencil-args", default="--size 2048 --iterations 200 --delay-us 2000 --slow-rank 1")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    small, large = round_trip_ns(build, 8), round_trip_ns(build, 1 << 20)
    latency_ns = small / 2
    bandwidth = (1 << 20) / ((large / 2 - latency_ns) * 1e-9)
    model = "latency=%.3fus,bandwidth=%.1fMB/s" % (latency_ns / 1e3, bandwidth / 1e6)
    print("network: 8 B round trip %.0f ns, 1 MiB round trip %.0f ns -> %s" % (small, large, model))
    work = tempfile.mkdtemp(prefix="orrery-what-if-accuracy-")
    errors = []
    for k in range(args.repeat):
        exp = os.path.join(work, "run%d" % k)
        subprocess.run([os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--", "mpirun",
                        "--oversubscribe", "-np", str(args.ranks),
                        os.path.join(build, "examples", "stencil2d")] + args.stencil_args.split(),
                       check=True, capture_output=True, env=environment(), timeout=600)
        summary = subprocess.run(["mpirun", "--oversubscribe", "-np", str(args.ranks),
                                  os.path.join(build, "bin", "orrery-analyze"), exp, "--what-if",
                                  model, "-o", os.path.join(exp, "what-if.h5")],
                                 check=True, capture_output=True, text=True, env=environment(),
                                 timeout=600).stdout
        match = re.search(r"predicted run time ([0-9.e+-]+) s \(measured ([0-9.e+-]+) s", summary)
        if not match:
            sys.exit("what_if_accuracy: no prediction line in the summary:\n" + summary)
        predicted, measured = float(match.group(1)), float(match.group(2))
        errors.append((predicted - measured) / measured)
        print("run %d: measured %.4f s, predicted %.4f s, error %+.1f %%"
              % (k, measured, predicted, 100 * errors[-1]))
    worst = max(errors, key=abs)
    print("worst error %+.1f %% over %d runs (target: within 10 %%)" % (100 * worst, len(errors)))


if __name__ == "__main__":
    sys.exit(main())
