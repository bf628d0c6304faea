#!/usr/bin/env python3
"""`orrery scaling` on synthetic cubes with known laws, and its bad input.

usage: scaling_test.py ORRERY

Runs at P = 2, 4, 8, 16 where, per process, main/solve takes 10/P s (strong
scaling), main/MPI_Allreduce 0.001 + 0.0005 log2 P s and main itself 1 s.
The models must be recovered and predict P = 32 within 1 %; the efficiency
rows written in the reports give the runs table."""

import json
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubes  # noqa: E402

ORRERY = sys.argv[1]
FAILURES = []
TREE = [(-1, "main"), (0, "solve"), (0, "MPI_Allreduce")]


def run(*args, expect=0):
    result = subprocess.run([ORRERY, *map(str, args)], capture_output=True, text=True, timeout=60)
    if result.returncode != expect:
        FAILURES.append("orrery %s: exit %d, expected %d; stderr: %s"
                        % (" ".join(map(str, args)), result.returncode, expect, result.stderr))
    return result


def law_cube(directory, p, tree=TREE, parallel_efficiency=None):
    """Exclusive values: every rank has the per-process time of each call path."""
    ranks = list(range(p))
    time = np.zeros((len(tree), p))
    mpi = np.zeros((len(tree), p))
    time[0, :] = 1.0
    time[1, :] = 10.0 / p
    mpi[2, :] = 0.001 + 0.0005 * math.log2(p)
    path = os.path.join(directory, "p%d-%s.h5" % (p, tree[0][1]))
    cubes.write_cube(path, tree, ranks, {"time": time, "mpi": mpi})
    if parallel_efficiency is not None:
        text = h5py.string_dtype("utf-8")
        with h5py.File(path, "a") as f:
            f["efficiency"] = np.array([("parallel_efficiency", parallel_efficiency, "")],
                                       dtype=[("name", text), ("value", "<f8"),
                                              ("description", text)])
    return path


def main():
    directory = tempfile.mkdtemp(prefix="orrery-scaling-")
    reports = [law_cube(directory, p, parallel_efficiency=1.0 - 0.05 * k)
               for k, p in enumerate([2, 4, 8, 16])]
    result = run("scaling", *reports, "--predict", 32, "--format", "json")
    rows = {row["callpath"]: row for row in json.loads(result.stdout or "[]")}
    expected = {"main/solve": 10.0 / 32, "main/MPI_Allreduce": 0.001 + 0.0005 * 5}
    for callpath, value in expected.items():
        row = rows.get(callpath)
        if row is None:
            FAILURES.append("no model for %s: %s" % (callpath, result.stdout))
            continue
        if set(row) != {"callpath", "metric", "values", "model", "predicted"} \
                or row["metric"] != "time" or row["values"] != "inclusive":
            FAILURES.append("JSON keys of %s: %s" % (callpath, row))
        if abs(row["predicted"] - value) > 0.01 * value:
            FAILURES.append("%s predicted %r at 32, expected %r (model %s)"
                            % (callpath, row["predicted"], value, row["model"]))
        print("%-20s %-40s %.6g (expected %.6g)" % (callpath, row["model"], row["predicted"], value))
    if "log2(p)" not in rows.get("main/MPI_Allreduce", {}).get("model", ""):
        FAILURES.append("the Allreduce model is not logarithmic: %s" % rows.get("main/MPI_Allreduce"))
    if "p^(-1)" not in rows.get("main/solve", {}).get("model", ""):
        FAILURES.append("the solve model is not 1/p: %s" % rows.get("main/solve"))

    # --exclusive: main's own time is the constant 1 s (inclusive it is 1 + 10/P + the
    # Allreduce), and the exclusive models add up to the inclusive root's prediction.
    result = run("scaling", *reports, "--predict", 32, "--exclusive", "--format", "json")
    own = {row["callpath"]: row for row in json.loads(result.stdout or "[]")}
    main_own = own.get("main", {})
    if main_own.get("values") != "exclusive" or abs(main_own.get("predicted", 0) - 1.0) > 0.01:
        FAILURES.append("--exclusive: main predicted %r, expected 1.0 (exclusive)" % main_own)
    total = sum(row["predicted"] for row in own.values())
    inclusive_main = rows.get("main", {}).get("predicted", 0)
    if abs(total - (1.0 + 10.0 / 32 + 0.001 + 0.0005 * 5)) > 0.01 * total:
        FAILURES.append("--exclusive models sum to %r at 32, expected %r (inclusive main: %r)"
                        % (total, 1.0 + 10.0 / 32 + 0.0035, inclusive_main))

    table = run("scaling", *reports, "--predict", 32).stdout
    print(table)
    for words in ["at p=32", "main/MPI_Allreduce", "Scaling worst", "computation scalability"]:
        if words not in table:
            FAILURES.append("table lacks %r" % words)
    # Computation scalability: useful computation 1 + 10/P per process, P processes.
    useful = {p: p * (1 + 10.0 / p) for p in [2, 4, 8, 16]}
    line = [l for l in table.splitlines() if l.strip().startswith("16 ")]
    if not line or "%.3f" % (useful[2] / useful[16]) not in line[0] \
            or "%.3f" % (0.85 * useful[2] / useful[16]) not in line[0]:
        FAILURES.append("runs table line for 16: %r (scalability %.3f)" % (line, useful[2] / useful[16]))

    # --by n: runs of 4 ranks that differ in a --param n (run.json beside each
    # report), solve taking 1e-6 n s per process.
    by_reports = []
    for n in [1024, 2048, 4096, 8192]:
        run_dir = os.path.join(directory, "n%d" % n)
        os.makedirs(run_dir)
        path = law_cube(run_dir, 4)
        with h5py.File(path, "a") as f:
            f["values/time"][1, :] = 1e-6 * n
        with open(os.path.join(run_dir, "run.json"), "w") as f:
            json.dump({"params": {"n": str(n)}, "ranks": 4}, f)
        by_reports.append(path)
    result = run("scaling", *by_reports, "--by", "n", "--predict", 16384, "--format", "json")
    rows = {row["callpath"]: row for row in json.loads(result.stdout or "[]")}
    solve = rows.get("main/solve", {})
    print("by n: main/solve %s -> %r" % (solve.get("model"), solve.get("predicted")))
    if abs(solve.get("predicted", 0) - 0.016384) > 0.01 * 0.016384 or " n" not in solve.get("model", ""):
        FAILURES.append("--by n: main/solve %s" % solve)
    bad = run("scaling", *by_reports, "--by", "size", expect=1)
    if "no parameter 'size'" not in bad.stderr:
        FAILURES.append("--by size: %r" % bad.stderr)

    # Bad input: too few reports (usage, 2), the same size thrice or another
    # program (input, 1), a missing file (1).
    for args, status, words in [
            ((reports[0],), 2, "at least 3"),
            (reports[:2], 2, "at least 3"),
            ((reports[0], reports[0], reports[1]), 1, "different rank counts"),
            ((reports[0], reports[1], law_cube(directory, 8, [(-1, "other"), (0, "x"), (0, "y")])),
             1, "another program"),
            ((reports[0], reports[1], os.path.join(directory, "missing.h5")), 1, "missing.h5"),
            ((*reports[:3], "--predict", "-4"), 2, "predict")]:
        bad = run("scaling", *args, expect=status)
        if words not in bad.stderr or len(bad.stderr.strip().splitlines()) != 1:
            FAILURES.append("scaling %s: expected one line with %r, got %r" % (args, words, bad.stderr))

    if FAILURES:
        for failure in FAILURES:
            print("FAIL: " + failure)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
