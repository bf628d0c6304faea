#!/usr/bin/env python3
"""`orrery run --mode profile` writes EXP/report.h5 that `orrery stat` opens,
and its counts equal those the analyzer finds in a trace of the same run.

The same deterministic program (the instrumented stencil example, compiler
regions included) is measured once as a profile and once as a trace; the
trace is analyzed. Per call path and rank, visits must be equal; per rank,
sends, receives, collectives and their bytes must be equal; the profile's
time per rank must be positive and split into execution, mpi and overhead.
"""
import json
import os
import shutil
import tempfile

from workflow_support import ANALYZE, BUILD, ORRERY, fail, rank_totals, run, values_by_path

RANKS = 2
PROGRAM = [os.path.join(BUILD, "examples", "stencil2d-instrumented"), "--size", "48",
           "--iterations", "12", "--imbalance", "0", "--quiet"]


def main():
    work = tempfile.mkdtemp(prefix="orrery_profile_")
    try:
        profile = os.path.join(work, "profile")
        _, err = run([ORRERY, "run", "-m", "profile", "-o", profile, "--", "mpirun", "-np",
                      str(RANKS)] + PROGRAM)
        report = os.path.join(profile, "report.h5")
        if not os.path.exists(report):
            fail("profile mode wrote no report.h5:\n" + err)
        if "orrery stat " + report not in err or "orrery-analyze" in err:
            fail("the closing hint of a profile run does not point at orrery stat:\n" + err)
        stat = json.loads(run([ORRERY, "stat", report, "--format", "json"])[0])
        if stat["metric"] != "time" or stat["total"] <= 0:
            fail("orrery stat on the profile: %s" % stat)
        run([ORRERY, "stat", report, "-m", "mpi"])

        trace = os.path.join(work, "trace")
        _, err = run([ORRERY, "run", "-o", trace, "--", "mpirun", "-np", str(RANKS)] + PROGRAM)
        if "orrery-analyze" not in err:
            fail("the closing hint of a trace run does not name orrery-analyze:\n" + err)
        run(["mpirun", "-np", str(RANKS), ANALYZE, trace])
        analyzed = os.path.join(trace, "report.h5")

        profile_visits = values_by_path(report, "visits")
        trace_visits = values_by_path(analyzed, "visits")
        for path, visits in trace_visits.items():
            if path not in profile_visits:
                if visits.sum() > 0:
                    fail("call path %s of the trace is missing from the profile" % path)
                continue
            if list(profile_visits[path]) != list(visits):
                fail("visits of %s: profile %s, trace %s" % (path, profile_visits[path], visits))
        for metric in ["sends", "receives", "collectives", "bytes_sent", "bytes_received",
                       "bytes_coll_out", "bytes_coll_in"]:
            mine = rank_totals(report, metric)
            theirs = rank_totals(analyzed, metric)
            if list(mine) != list(theirs):
                fail("%s per rank: profile %s, trace analysis %s" % (metric, mine, theirs))
            print("%s per rank: %s (both)" % (metric, list(mine)))
        time = sum(rank_totals(report, m) for m in ["time", "execution", "mpi", "overhead"])
        mpi = rank_totals(report, "mpi")
        if not (time > 0).all() or not (mpi > 0).all() or not (mpi < time).all():
            fail("profile time per rank %s, of it MPI %s" % (time, mpi))
        print("PASS: profile report matches the trace's counts (%d call paths)" % len(trace_visits))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
