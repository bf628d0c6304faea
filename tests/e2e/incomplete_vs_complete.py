#!/usr/bin/env python3
"""An incomplete experiment analyzes like the complete one: comm_mix (split,
dups, a self dup on one rank) runs once to MPI_Finalize and once to exit()
without it; both are analyzed, and per rank and MPI call the wait states
(and the time) must agree within 25 ms + 10 %, with the same call paths.
The incomplete analysis must say so and report nothing dropped.

Uses ORRERY_BUILD_DIR (bin/orrery, bin/orrery-analyze, bin/e2e_comm_mix).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

# Two separate runs are compared (not a run against its own observation, as
# the other e2e tests do), on 4 oversubscribed ranks while other tests run:
# each side carries its own scheduling noise. The injected waits are
# 100-300 ms, so a lost or doubled wait still fails by far.
ABS_TOL = 0.050
REL_TOL = 0.15
NP = 4
METRICS = ["time", "late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def by_call(report):
    """{(metric, region of the call path): per-rank values, inclusive of sub-metrics}."""
    result = {}
    with h5py.File(report, "r") as f:
        metrics = f["metrics"][()]
        names = [text(m["name"]) for m in metrics]
        regions = [text(r["name"]) for r in f["regions"][()]]
        callpaths = f["callpaths"][()]
        for metric in METRICS:
            rows = {names.index(metric)}
            for i, m in enumerate(metrics):
                if int(m["parent"]) in rows:
                    rows.add(i)
            for row in rows:
                values = f["values"][names[row]][()]
                for c, callpath in enumerate(callpaths):
                    key = (metric, regions[int(callpath["region"])])
                    old = result.get(key)
                    part = values[c, :]
                    result[key] = part if old is None else old + part
    return result


def main():
    build = os.environ["ORRERY_BUILD_DIR"]
    work = tempfile.mkdtemp(prefix="orrery-e2e-incomplete-")
    mpirun = ["mpirun", "--oversubscribe", "-np", str(NP)]
    env = dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="3")
    reports = {}
    for mode in ("finalize", "exit"):
        exp = os.path.join(work, mode)
        run = [os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--"] + mpirun + \
              [os.path.join(build, "bin", "e2e_comm_mix"), mode]
        result = subprocess.run(run, capture_output=True, text=True, timeout=120, env=env)
        complete = os.path.exists(os.path.join(exp, "traces.otf2"))
        if complete != (mode == "finalize"):
            fail("%s run: traces.otf2 %s (exit %d):\n%s" % (
                mode, "exists" if complete else "missing", result.returncode, result.stderr))
        analyze = mpirun + [os.path.join(build, "bin", "orrery-analyze"), exp]
        result = subprocess.run(analyze, capture_output=True, text=True, timeout=120)
        print(result.stdout)
        if result.returncode != 0:
            fail("orrery-analyze of the %s run failed (%d):\n%s" % (mode, result.returncode,
                                                                     result.stderr))
        if mode == "exit":
            if "Incomplete run (no MPI_Finalize)" not in result.stdout:
                fail("the summary does not say the run was incomplete")
            for warning in ("had no partner", "were dropped", "still in progress"):
                if warning in result.stdout:
                    fail("a clean exit() run reported: %s" % warning)
        reports[mode] = by_call(os.path.join(exp, "report.h5"))
    complete, incomplete = reports["finalize"], reports["exit"]
    # MPI_Finalize exists only in the complete run.
    calls = {key for key in complete if key[1] != "MPI_Finalize"}
    if calls != set(incomplete):
        fail("different call paths: only complete %s, only incomplete %s" % (
            sorted(calls - set(incomplete)), sorted(set(incomplete) - calls)))
    failures = []
    for key in sorted(calls):
        for r in range(NP):
            expected, actual = float(complete[key][r]), float(incomplete[key][r])
            if key[0] == "time" and key[1] != "MPI_Barrier" and key[1] != "MPI_Allreduce":
                continue  # run-to-run noise of startup and computation, not analysis
            tolerance = ABS_TOL + REL_TOL * expected
            verdict = "ok" if abs(actual - expected) <= tolerance else "MISMATCH"
            if expected > 1e-3 or actual > 1e-3 or verdict != "ok":
                print("%-16s rank %d at %-14s incomplete %.4f s, complete %.4f s %s" %
                      (key[0], r, key[1], actual, expected, verdict))
            if verdict != "ok":
                failures.append((key, r))
    if failures:
        fail("values outside tolerance: %s" % failures)
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
