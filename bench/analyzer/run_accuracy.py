#!/usr/bin/env python3
"""Wait-state accuracy benchmark: how exactly orrery-analyze finds injected
waits, against what the program itself observed. Not a test: it asserts
nothing, it prints the numbers (the peers match injected waits to within
0.1 %).

    python3 bench/analyzer/run_accuracy.py [--build BUILD_DIR] [--repeats N]

accuracy_app (4 ranks) records the node's monotonic clock right before and
after each of its MPI calls. From those timestamps this script computes every
wait state with the formulas of docs/design.md §4 (enter/exit = the program's own
before/after times) and compares them with the report of the same run.
Needs h5py (Debian's /usr/bin/python3 has it).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import h5py

RANKS = 4
# scenario: (metric, MPI call whose call path holds it)
CHECKS = {
    "late_sender": ("late_sender", "MPI_Recv"),
    "late_receiver": ("late_receiver", "MPI_Ssend"),
    "barrier": ("wait_at_barrier", "MPI_Barrier"),
    "nxn": ("wait_at_nxn", "MPI_Allreduce"),
    "bcast": ("late_broadcast", "MPI_Bcast"),
    "reduce": ("early_reduce", "MPI_Reduce"),
}


def environment():
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env


def run(command):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          env=environment(), timeout=300)
    if done.returncode != 0:
        sys.exit("run_accuracy: %s failed (%d):\n%s%s" % (
            " ".join(map(str, command)), done.returncode, done.stdout, done.stderr))
    return done.stdout


def observations(directory):
    """{scenario: {rank: [(enter_s, exit_s), ...]}} in call order."""
    seen = defaultdict(lambda: defaultdict(list))
    for rank in range(RANKS):
        for line in (directory / ("rank%d.txt" % rank)).read_text().split("\n"):
            if line.strip():
                scenario, enter, leave = line.split()
                seen[scenario][rank].append((int(enter) * 1e-9, int(leave) * 1e-9))
    return seen


def expected_waits(seen):
    """{scenario: {rank: seconds}} by docs/design.md §4, from the observed times."""
    waits = defaultdict(lambda: defaultdict(float))
    positive = lambda value: max(0.0, value)
    ls = seen["late_sender"]
    for (enter, leave), (send_enter, _) in zip(ls[0], ls[1]):
        waits["late_sender"][0] += positive(min(send_enter, leave) - enter)
    lr = seen["late_receiver"]
    for (enter, leave), (recv_enter, _) in zip(lr[2], lr[3]):
        waits["late_receiver"][2] += positive(min(recv_enter, leave) - enter)
    for scenario in ("barrier", "nxn"):
        calls = seen[scenario]
        for instance in zip(*(calls[r] for r in range(RANKS))):
            latest = max(enter for enter, _ in instance)
            for rank, (enter, leave) in enumerate(instance):
                waits[scenario][rank] += positive(min(latest, leave) - enter)
    calls = seen["bcast"]
    for instance in zip(*(calls[r] for r in range(RANKS))):
        root_enter = instance[0][0]
        for rank, (enter, leave) in enumerate(instance):
            if rank != 0:
                waits["bcast"][rank] += positive(min(root_enter, leave) - enter)
    calls = seen["reduce"]
    for instance in zip(*(calls[r] for r in range(RANKS))):
        others = max(enter for enter, _ in instance[1:])
        enter, leave = instance[0]
        waits["reduce"][0] += positive(min(others, leave) - enter)
    return waits


def analyzed_waits(report):
    """{scenario: {rank: seconds}} from report.h5 (the metric with its sub-metrics)."""
    with h5py.File(report, "r") as f:
        metrics = f["metrics"][:]
        names = [m["name"].decode() if isinstance(m["name"], bytes) else m["name"] for m in metrics]
        parents = [int(m["parent"]) for m in metrics]
        regions = [r["name"].decode() if isinstance(r["name"], bytes) else r["name"]
                   for r in f["regions"][:]]
        callpath_regions = [regions[int(c["region"])] for c in f["callpaths"][:]]
        waits = defaultdict(lambda: defaultdict(float))
        for scenario, (metric, call) in CHECKS.items():
            rows = {names.index(metric)}
            for row, parent in enumerate(parents):  # pre-order: parents come first
                if parent in rows:
                    rows.add(row)
            for row in rows:
                values = f["values"][names[row]][:]
                for cp, region in enumerate(callpath_regions):
                    if region == call:
                        for rank in range(RANKS):
                            waits[scenario][rank] += float(values[cp][rank])
        return waits


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--repeats", type=int, default=5, help="instances of each wait")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    work = Path(tempfile.mkdtemp(prefix="orrery-accuracy-"))
    observed_dir = work / "observed"
    observed_dir.mkdir()
    experiment = work / "exp"
    run([build / "bin" / "orrery", "run", "-o", experiment, "--", "mpirun", "-np", RANKS,
         build / "bin" / "analyzer_accuracy_app", observed_dir, args.repeats])
    run(["mpirun", "-np", RANKS, build / "bin" / "orrery-analyze", "-q", experiment])
    expected = expected_waits(observations(observed_dir))
    analyzed = analyzed_waits(experiment / "report.h5")

    print("wait-state accuracy: %d instances of each injected wait, 4 ranks on this machine"
          % args.repeats)
    print("expected = docs/design.md §4 formula on the program's own clock readings around each call")
    print("%-15s %-5s %12s %12s %10s %9s" % ("wait state", "rank", "observed ms", "analyzed ms",
                                            "diff us", "error %"))
    worst = 0.0
    for scenario in CHECKS:
        for rank in range(RANKS):
            e, a = expected[scenario][rank], analyzed[scenario][rank]
            if e < 1e-3 and a < 1e-3:
                continue
            error = abs(a - e) / e * 100 if e > 0 else float("inf")
            worst = max(worst, error)
            print("%-15s %-5d %12.3f %12.3f %10.1f %9.4f" % (CHECKS[scenario][0], rank, e * 1e3,
                                                            a * 1e3, (a - e) * 1e6, error))
    print("largest relative error: %.4f %% (peers: within 0.1 %%)" % worst)


if __name__ == "__main__":
    main()
