#!/usr/bin/env python3
"""End-to-end (issue 15): on one machine the ranks share one time base, so
no message may seem to arrive before it was sent.

    clock_condition.py [ITERATIONS] [RUNS]

Measures the high-rate collective ring (e2e_collective_ring: MPI_Allreduce +
MPI_Sendrecv, a barrier every 4th round) on 4 ranks RUNS times (default 2,
20,000 rounds each); analyzes each run with and without clock correction and
checks: run.json names the clock and its per-node conversion; report.h5's
/clock_corrections counts 0 violations on every rank; the summary says so;
both reports hold identical values for every metric. Uses ORRERY_BUILD_DIR.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RANKS = 4


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, timeout=240):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        fail("%s failed (%d):\n%s\n%s" % (" ".join(command), result.returncode, result.stdout,
                                         result.stderr))
    return result.stdout


def check_run_json(exp):
    with open(os.path.join(exp, "run.json")) as f:
        clock = json.load(f).get("clock")
    if not isinstance(clock, dict):
        fail("run.json has no clock object")
    if clock.get("source") not in ("tsc", "monotonic"):
        fail("run.json clock source is %r" % clock.get("source"))
    nodes = clock.get("nodes", [])
    if len(nodes) != 1 or sorted(nodes[0].get("ranks", [])) != list(range(RANKS)):
        fail("expected one node holding all %d ranks, got %r" % (RANKS, nodes))
    node = nodes[0]
    if len(node.get("pairs", [])) != 2 or len(node.get("offsets", [])) != 2:
        fail("the node should list two conversion pairs and two offsets: %r" % node)
    if any(o["offset_ns"] != 0 for o in node["offsets"]):
        fail("ranks on rank 0's node must have offset 0: %r" % node["offsets"])
    return clock


def report_values(path):
    with h5py.File(path, "r") as f:
        values = {name: np.array(f["values"][name]) for name in f["values"]}
        table = f["clock_corrections"][()] if "clock_corrections" in f else None
        clock = f.attrs.get("clock")
    return values, table, clock


def check_pretended_nodes(build, mpirun, work, iterations):
    """Two pretended nodes of two ranks (ORRERY_TEST_RANKS_PER_NODE, a test
    hook): the leaders' ping-pong runs, and as both nodes really share one
    clock, each measured offset (true value 0) lies within its uncertainty
    (half the best round trip) by construction."""
    exp = os.path.join(work, "nodes")
    env = dict(os.environ, ORRERY_TEST_RANKS_PER_NODE="2")
    result = subprocess.run([os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--"] + mpirun +
                            [os.path.join(build, "bin", "e2e_collective_ring"),
                             str(min(int(iterations), 5000))],
                            capture_output=True, text=True, timeout=240, env=env)
    if result.returncode != 0:
        fail("run with pretended nodes failed:\n" + result.stderr)
    with open(os.path.join(exp, "run.json")) as f:
        nodes = json.load(f)["clock"]["nodes"]
    if [sorted(n["ranks"]) for n in nodes] != [[0, 1], [2, 3]]:
        fail("expected pretended nodes [0, 1] and [2, 3]: %r" % nodes)
    for offset in nodes[1]["offsets"]:
        if offset["uncertainty_ns"] <= 0 or abs(offset["offset_ns"]) > offset["uncertainty_ns"] + 1:
            fail("offset %r outside its uncertainty" % offset)
    summary = run(mpirun + [os.path.join(build, "bin", "orrery-analyze"), exp])
    if "offsets to rank 0: ping-pong" not in summary or "Clock corrections:" not in summary:
        fail("the summary does not describe two nodes' offsets:\n" + summary)
    # Between the pretended nodes the offsets' errors (up to their
    # uncertainty) do cause corrections; they must stay of that size and not
    # add up over the run as a shift of everything after them would.
    _, table, _ = report_values(os.path.join(exp, "report.h5"))
    uncertainty = max(o["uncertainty_ns"] for n in nodes for o in n["offsets"]) * 1e-9
    if table["max_shift"].max() > 2 * uncertainty + 2e-6:
        fail("a correction moved an event by %g s, more than the offsets' uncertainty (%g s) "
             "explains" % (table["max_shift"].max(), uncertainty))
    print("pretended nodes: offsets %s; %s" % (
        [(o["offset_ns"], round(o["uncertainty_ns"])) for o in nodes[1]["offsets"]],
        [line for line in summary.splitlines() if line.startswith("Clock")]))


def main():
    iterations = sys.argv[1] if len(sys.argv) > 1 else "20000"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    build = os.environ["ORRERY_BUILD_DIR"]
    mpirun = ["mpirun", "--oversubscribe", "-np", str(RANKS)]
    work = tempfile.mkdtemp(prefix="orrery-e2e-clock-")
    messages = 0
    for attempt in range(runs):
        exp = os.path.join(work, "exp%d" % attempt)
        run([os.path.join(build, "bin", "orrery"), "run", "-o", exp, "--"] + mpirun +
            [os.path.join(build, "bin", "e2e_collective_ring"), iterations])
        clock = check_run_json(exp)
        default = os.path.join(exp, "report.h5")
        raw = os.path.join(exp, "raw.h5")
        summary = run(mpirun + [os.path.join(build, "bin", "orrery-analyze"), exp])
        run(mpirun + [os.path.join(build, "bin", "orrery-analyze"), exp, "--no-clock-correction",
                      "-o", raw])
        if "Clock corrections: none" not in summary:
            fail("the summary should report no corrections:\n" + summary)
        if "Clock: " not in summary:
            fail("the summary does not name the clock:\n" + summary)
        values, table, description = report_values(default)
        raw_values, raw_table, _ = report_values(raw)
        if table is None or raw_table is None:
            fail("report.h5 has no /clock_corrections table")
        if description is None:
            fail("report.h5 has no clock attribute")
        for name, field in (("default", table), ("--no-clock-correction", raw_table)):
            if len(field) != RANKS or field["violations"].sum() != 0 or field["corrected"].sum() != 0:
                fail("%s analysis found clock-condition violations on one node: %r" % (name, field))
        received = values["receives"].sum()
        if received < int(iterations) * RANKS:
            fail("only %d receives analyzed" % received)
        messages += int(received)
        for name, array in values.items():
            if not np.array_equal(array, raw_values[name]):
                diff = np.abs(array - raw_values[name]).max()
                fail("metric %s differs with and without correction (max %g)" % (name, diff))
        print("run %d: %s clock, %d receives, 0 violations, reports identical; %s" % (
            attempt, clock["source"], received, description))
    print("%d runs, %d messages on one node: no clock-condition violation" % (runs, messages))
    check_pretended_nodes(build, mpirun, work, iterations)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
