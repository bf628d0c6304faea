#!/usr/bin/env python3
"""Delay costs and wait-state classes end to end, against the program's own
clocks: e2e_delay_chain on NP ranks, the last one sleeping DELAY seconds.

Rank r < NP-1 waits in MPI_Recv for rank r+1 from its own recv_enter to rank
r+1's send_enter (one node: one clock). Only rank NP-2's wait is direct; it is
the short-term delay cost of the last rank, and the waits of ranks
0..NP-3 (indirect: their partner was itself waiting) are its long-term costs.
Ranks 1..NP-2 propagate their waiting, rank 0's is terminal.

    delay_chain.py NP DELAY
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RELATIVE, ABSOLUTE = 0.15, 0.02  # tolerances: oversubscribed ranks on 2 cores


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def observed(outdir, np_):
    values = []
    for r in range(np_):
        with open(os.path.join(outdir, "rank%d.txt" % r)) as f:
            values.append({k: float(v) for k, v in (line.split() for line in f)})
    return values


def per_rank(report, metric):
    with h5py.File(report, "r") as f:
        return np.nansum(f["values/" + metric][:], axis=0)


def near(label, actual, expected, failures):
    ok = abs(actual - expected) <= ABSOLUTE + RELATIVE * abs(expected)
    print("%-44s analyzer %.6f s, program %.6f s %s" % (label, actual, expected,
                                                         "ok" if ok else "MISMATCH"))
    if not ok:
        failures.append(label)


def main():
    np_, delay = int(sys.argv[1]), float(sys.argv[2])
    build = os.environ["ORRERY_BUILD_DIR"]
    work = tempfile.mkdtemp(prefix="orrery-e2e-delay-")
    exp, outdir = os.path.join(work, "exp"), os.path.join(work, "observed")
    os.makedirs(outdir)
    mpirun = ["mpirun", "--oversubscribe", "-np", str(np_)]
    env = dict(os.environ, OMPI_MCA_mpi_yield_when_idle="1")
    result = subprocess.run([os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--"] + mpirun +
                            [os.path.join(build, "bin", "e2e_delay_chain"), outdir, str(delay)],
                            capture_output=True, text=True, timeout=120, env=env)
    if result.returncode != 0:
        fail("measured run failed:\n" + result.stdout + result.stderr)
    result = subprocess.run(mpirun + [os.path.join(build, "bin", "orrery-analyze"), exp],
                            capture_output=True, text=True, timeout=120, env=env)
    print(result.stdout)
    if result.returncode != 0:
        fail("orrery-analyze failed:\n" + result.stderr)
    if "Top findings" not in result.stdout:
        fail("the analyzer's summary has no findings")
    report = os.path.join(exp, "report.h5")
    seen = observed(outdir, np_)
    last = np_ - 1
    waits = [seen[r + 1]["send_enter"] - seen[r]["recv_enter"] for r in range(last)]
    failures = []
    late_sender = per_rank(report, "late_sender") + per_rank(report, "late_sender_wrong_order")
    for r in range(last):
        near("late_sender rank %d" % r, late_sender[r], waits[r], failures)
    near("delay_late_sender_short_term rank %d" % last,
         per_rank(report, "delay_late_sender_short_term")[last], waits[last - 1], failures)
    near("delay_late_sender_long_term rank %d" % last,
         per_rank(report, "delay_late_sender_long_term")[last], sum(waits[:last - 1]), failures)
    direct, indirect = per_rank(report, "wait_direct"), per_rank(report, "wait_indirect")
    propagating, terminal = per_rank(report, "wait_propagating"), per_rank(report, "wait_terminal")
    near("wait_direct rank %d" % (last - 1), direct[last - 1], waits[last - 1], failures)
    for r in range(last - 1):
        near("wait_indirect rank %d" % r, indirect[r], waits[r], failures)
    for r in range(1, last):
        near("wait_propagating rank %d" % r, propagating[r], waits[r], failures)
    near("wait_terminal rank 0", terminal[0], waits[0], failures)
    findings = subprocess.run([os.path.join(build, "bin", "orrery"), "findings", report,
                               "--format", "json"], capture_output=True, text=True, timeout=60)
    if findings.returncode != 0:
        fail("orrery findings failed: " + findings.stderr)
    import json
    top = json.loads(findings.stdout)["findings"][0]
    if top["pattern"] != "late_sender" or not top["causes"] or \
            top["causes"][0]["ranks"][0]["rank"] != last:
        fail("the top finding does not blame rank %d: %s" % (last, top))
    if failures:
        fail("%d values differ from what the program observed: %s" % (len(failures), failures))
    print("ok")


if __name__ == "__main__":
    main()
