#!/usr/bin/env python3
"""An incomplete experiment analyzes like the complete one: comm_mix (split,
dups, a self dup on one rank) runs once to MPI_Finalize and once to exit()
without it; both are analyzed with the same call paths, and in each the wait
states per rank and MPI call must equal what the program's own clock readings
give (the enter and leave time of every call, CLOCK_MONOTONIC on one host) within
25 ms + 10 %, as the other end-to-end tests check. The incomplete analysis
must say so and report nothing dropped.

Uses ORRERY_BUILD_DIR (bin/orrery, bin/orrery-analyze, bin/e2e_comm_mix).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

# Each run against its own observations (not one run against the other: each
# carries its own scheduling noise on 4 oversubscribed ranks). The injected
# waits are 50-300 ms, so a lost or doubled wait still fails by far.
ABS_TOL = 0.025
REL_TOL = 0.10
NP = 4
METRICS = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn"]
CHECKED = [("wait_at_nxn", "MPI_Allreduce"), ("wait_at_barrier", "MPI_Barrier"),
           ("late_sender", "MPI_Recv")]


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


def read_seen(outdir):
    """Per rank, {key: CLOCK_MONOTONIC seconds} of every call's enter and leave."""
    seen = []
    for r in range(NP):
        with open(os.path.join(outdir, "rank%d.txt" % r)) as f:
            seen.append({k: float(v) for k, v in (line.split() for line in f if line.strip())})
    return seen


def expected_waits(seen):
    """{(metric, call): per-rank seconds} from the enter and leave times the
    ranks saw: in each instance min(latest enter of the members, own leave)
    minus own enter (Late Sender: the partner's send enter)."""
    def wait(r, key, members):
        latest = max(seen[m][key + "_enter"] for m in members)
        return max(0.0, min(latest, seen[r][key + "_leave"]) - seen[r][key + "_enter"])

    expected = {check: [0.0] * NP for check in CHECKED}
    for r in range(NP):
        half = [m for m in range(NP) if m % 2 == r % 2]  # the split by parity
        for i in range(3):
            expected[("wait_at_nxn", "MPI_Allreduce")][r] += wait(r, "allreduce%d" % i, half)
            expected[("wait_at_barrier", "MPI_Barrier")][r] += wait(r, "barrier%d" % i, half)
        expected[("wait_at_barrier", "MPI_Barrier")][r] += wait(r, "half", half)
        expected[("wait_at_barrier", "MPI_Barrier")][r] += wait(r, "world", range(NP))
    for receiver, sender in ((0, 2), (1, 3)):  # half rank 0 receives from half rank 1
        recv_enter, recv_leave = seen[receiver]["recv_enter"], seen[receiver]["recv_leave"]
        expected[("late_sender", "MPI_Recv")][receiver] = max(
            0.0, min(seen[sender]["send_enter"], recv_leave) - recv_enter)
    return expected


def main():
    build = os.environ["ORRERY_BUILD_DIR"]
    work = tempfile.mkdtemp(prefix="orrery-e2e-incomplete-")
    mpirun = ["mpirun", "--oversubscribe", "-np", str(NP)]
    env = dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="3")
    reports, failures = {}, []
    for mode in ("finalize", "exit"):
        exp, outdir = os.path.join(work, mode), os.path.join(work, mode + "-seen")
        os.makedirs(outdir)
        run = [os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--"] + mpirun + \
              [os.path.join(build, "bin", "e2e_comm_mix"), mode, outdir]
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
        expected = expected_waits(read_seen(outdir))
        for key in CHECKED:
            for r in range(NP):
                want = expected[key][r]
                got = float(reports[mode].get(key, [0.0] * NP)[r])
                tolerance = ABS_TOL + REL_TOL * want
                verdict = "ok" if abs(got - want) <= tolerance else "MISMATCH"
                print("%-8s %-16s rank %d at %-14s analyzer %.4f s, observed %.4f s (+-%.3f) %s"
                      % (mode, key[0], r, key[1], got, want, tolerance, verdict))
                if verdict != "ok":
                    failures.append((mode, key, r))
    complete, incomplete = reports["finalize"], reports["exit"]
    # MPI_Finalize exists only in the complete run.
    calls = {key for key in complete if key[1] != "MPI_Finalize"}
    if calls != set(incomplete):
        fail("different call paths: only complete %s, only incomplete %s" % (
            sorted(calls - set(incomplete)), sorted(set(incomplete) - calls)))
    if failures:
        fail("values outside tolerance: %s" % failures)
    # A rank killed while writing its archive (mpirun's SIGKILL on a loaded
    # node) leaves an anchor and an empty traces.def: it counts as a rank
    # without trace, the others are analyzed.
    cut = os.path.join(work, "cut")
    shutil.copytree(os.path.join(work, "exit"), cut)
    open(os.path.join(cut, "incomplete", "rank-1", "traces.def"), "w").close()
    result = subprocess.run(mpirun + [os.path.join(build, "bin", "orrery-analyze"), cut],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or "no trace: rank 1" not in result.stdout:
        fail("an unfinished archive of rank 1: exit %d, summary:\n%s%s" % (
            result.returncode, result.stdout, result.stderr))
    print("ok   an unfinished archive (empty traces.def) counts as a rank without trace")
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
