#!/usr/bin/env python3
"""The critical path, its imbalance and the function groups end to end,
against the program's own clocks: e2e_critical_path on NP ranks, the last
one computing DELAY seconds longer per iteration.

The last rank never waits, so the critical path runs through all of its
`compute`: critical_path + critical_path_imbalance of compute on that rank
equal the compute time it measured itself, and the other ranks' compute is
not on the path. The part above the mean is the slow rank's compute minus
the mean compute of all ranks, and so is the performance impact summed over
ranks. Then `orrery imbalance` (table, JSON), its answer to a report without
or with broken /groups, --no-critical-path and --groups FILE.

    critical_path.py NP BASE DELAY ITERATIONS
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RELATIVE, ABSOLUTE = 0.15, 0.02  # tolerances: oversubscribed ranks on 2 cores


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def near(label, actual, expected, failures):
    ok = abs(actual - expected) <= ABSOLUTE + RELATIVE * abs(expected)
    print("%-48s analyzer %.6f s, program %.6f s %s" % (label, actual, expected,
                                                         "ok" if ok else "MISMATCH"))
    if not ok:
        failures.append(label)


def at_region(report, metric, region):
    """Per rank: the metric summed over the call paths of `region`."""
    with h5py.File(report, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["regions"]["name"]]
        rows = [c for c, r in enumerate(f["callpaths"]["region"]) if names[r] == region]
        return np.nansum(f["values/" + metric][rows, :], axis=0)


def main():
    np_, base, delay, iterations = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    build = os.environ["ORRERY_BUILD_DIR"]
    orrery = os.path.join(build, "bin", "orrery")
    work = tempfile.mkdtemp(prefix="orrery-e2e-critical-")
    exp, outdir = os.path.join(work, "exp"), os.path.join(work, "observed")
    os.makedirs(outdir)
    mpirun = ["mpirun", "--oversubscribe", "-np", str(np_)]
    env = dict(os.environ, OMPI_MCA_mpi_yield_when_idle="1")
    result = subprocess.run([orrery, "run", "-o", exp, "--"] + mpirun +
                            [os.path.join(build, "bin", "e2e_critical_path"), outdir, base, delay,
                             iterations], capture_output=True, text=True, timeout=120, env=env)
    if result.returncode != 0:
        fail("measured run failed:\n" + result.stdout + result.stderr)
    analyze = mpirun + [os.path.join(build, "bin", "orrery-analyze")]
    result = subprocess.run(analyze + [exp], capture_output=True, text=True, timeout=120, env=env)
    print(result.stdout)
    if result.returncode != 0:
        fail("orrery-analyze failed:\n" + result.stderr)
    if "critical path: ends on rank" not in result.stdout:
        fail("no critical-path progress line")
    if "compute, mostly on rank %d" % (np_ - 1) not in result.stdout.split("Critical path:")[-1]:
        fail("the summary's critical path does not name compute on rank %d" % (np_ - 1))
    report = os.path.join(exp, "report.h5")
    computed = []
    for r in range(np_):
        with open(os.path.join(outdir, "rank%d.txt" % r)) as f:
            computed.append(dict(line.split() for line in f)["compute"])
    computed = [float(c) for c in computed]
    last = np_ - 1
    failures = []
    path = at_region(report, "critical_path", "compute")
    above = at_region(report, "critical_path_imbalance", "compute")
    near("critical path in compute, rank %d" % last, path[last] + above[last], computed[last],
         failures)
    for r in range(last):
        on = path[r] + above[r]
        print("critical path in compute, rank %d: %.6f s (computed %.6f s)" % (r, on, computed[r]))
        if on > 0.25 * computed[r] + ABSOLUTE:
            failures.append("rank %d's compute on the path" % r)
    excess = computed[last] - sum(computed) / np_
    near("critical-path imbalance of compute", float(np.sum(above)), excess, failures)
    near("performance impact of compute",
         float(np.sum(at_region(report, "performance_impact", "compute"))), excess, failures)
    near("imbalance_above (overload) of compute, rank %d" % last,
         at_region(report, "imbalance_above", "compute")[last], excess, failures)

    # orrery imbalance: the computation group is most loaded on the slow rank.
    table = subprocess.run([orrery, "imbalance", report], capture_output=True, text=True, timeout=60)
    print(table.stdout)
    if table.returncode != 0 or "Computation" not in table.stdout:
        fail("orrery imbalance (table) failed: " + table.stdout + table.stderr)
    listing = subprocess.run([orrery, "imbalance", report, "--format", "json"], capture_output=True,
                             text=True, timeout=60)
    if listing.returncode != 0:
        fail("orrery imbalance --format json failed: " + listing.stderr)
    groups = json.loads(listing.stdout)["groups"]
    computation = [g for g in groups if g["name"] == "Computation" and g["parent"] == -1]
    if not computation or computation[0]["max_location"] != "rank %d" % last:
        fail("the computation group is not most loaded on rank %d: %s" % (last, computation))
    near("Computation group on rank %d (max)" % last, computation[0]["max"], computed[last], failures)
    if not all(0 <= g["similarity"] <= 1 for g in groups):
        fail("a similarity outside 0-1: %s" % groups)

    # A report without /groups, and one with a broken /groups.
    for damage in ("absent", "broken"):
        copy = os.path.join(work, damage + ".h5")
        shutil.copy(report, copy)
        with h5py.File(copy, "r+") as f:
            del f["groups"]
            if damage == "broken":
                f["groups"] = np.arange(3, dtype=np.float32)
        answer = subprocess.run([orrery, "imbalance", copy], capture_output=True, text=True,
                                timeout=60)
        lines = answer.stderr.strip().splitlines()
        if answer.returncode != 1 or len(lines) != 1 or "groups" not in lines[0]:
            fail("orrery imbalance on a report with %s /groups: exit %d, %r" %
                 (damage, answer.returncode, answer.stderr))
        print("%s /groups: %s" % (damage, lines[0]))
        other = subprocess.run([orrery, "stat", copy], capture_output=True, text=True, timeout=60)
        if other.returncode != 0:
            fail("orrery stat is affected by %s /groups: %s" % (damage, other.stderr))

    # --no-critical-path and --groups FILE.
    rules = os.path.join(work, "groups.txt")
    with open(rules, "w") as f:
        f.write("# the kernel\nKernels / slow = comp*\n")
    plain = os.path.join(work, "plain.h5")
    result = subprocess.run(analyze + [exp, "-o", plain, "--no-critical-path", "--groups", rules],
                            capture_output=True, text=True, timeout=120, env=env)
    if result.returncode != 0:
        fail("orrery-analyze --no-critical-path --groups failed:\n" + result.stderr)
    with h5py.File(plain, "r") as f:
        if np.nansum(f["values/critical_path"][:]) != 0 or np.nansum(f["values/performance_impact"][:]) != 0:
            fail("--no-critical-path still wrote a critical path")
        names = [n.decode() if isinstance(n, bytes) else n for n in f["groups"]["name"]]
    if "Kernels" not in names or "slow" not in names:
        fail("--groups did not make the group Kernels / slow: %s" % names)
    bad = os.path.join(work, "bad.txt")
    with open(bad, "w") as f:
        f.write("no pattern here\n")
    result = subprocess.run(analyze + [exp, "-o", os.path.join(work, "bad.h5"), "--groups", bad],
                            capture_output=True, text=True, timeout=120, env=env)
    if result.returncode != 1 or "bad.txt:1:" not in result.stderr:
        fail("a bad grouping file: exit %d, %r" % (result.returncode, result.stderr))
    if failures:
        fail("%d values differ from what the program observed: %s" % (len(failures), failures))
    shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
