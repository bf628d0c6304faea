#!/usr/bin/env python3
"""End-to-end: communicators created, used and freed on every OpenMP thread
at once (comm_churn.c, 2 ranks of 4 threads, built by GCC).

Checks: the run and the analysis succeed; otf2-print reads every event the
measurement wrote; no communicator was registered lazily or left
unregistered (measurement.json anomalies); every thread's collectives and
messages are its own: per location ROUNDS MPI_Allreduce instances
(`collectives`), ROUNDS sends and ROUNDS receives, none left unmatched; no
summary warning about communicators or unmatched messages.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_hybrid import Report, fail, measure_and_analyze, otf2_events  # noqa: E402

NP = 2
THREADS = 4
ROUNDS = 40  # comm_churn.c: kRounds


def main():
    build = os.environ["ORRERY_BUILD_DIR"]
    exp = os.path.join(tempfile.mkdtemp(prefix="orrery-comm-churn-"), "exp")
    summary = measure_and_analyze(build, exp, NP, [os.path.join(build, "bin", "openmp_comm_churn")])
    failures = []
    with open(os.path.join(exp, "run.json")) as f:
        record = json.load(f)
    statistics = record["measurement"]["statistics"]
    events = otf2_events(exp)
    if len(events) != statistics["total"]["events"]:
        failures.append("otf2-print read %d events, the measurement wrote %d" %
                        (len(events), statistics["total"]["events"]))
    for rank in statistics["per_rank"]:
        anomalies = rank["anomalies"]
        for name in ("lazily_registered_communicators", "thread_created_communicators"):
            if anomalies.get(name) != 0:
                failures.append("rank %s: %s = %s" % (rank.get("rank"), name, anomalies.get(name)))
    report = Report(os.path.join(exp, "report.h5"))
    for r in range(NP):
        for t in range(THREADS):
            where = report.location(r, t)
            counts = {metric: report.value(metric, where, lambda n, p=prefix: n == p)
                      for metric, prefix in (("collectives", "MPI_Allreduce"), ("sends", "MPI_Send"),
                                             ("receives", "MPI_Wait"))}
            line = "rank %d thread %d: %s" % (r, t, ", ".join("%s %d" % kv for kv in sorted(counts.items())))
            (print if all(v == ROUNDS for v in counts.values()) else failures.append)(line)
    for warning in ("communicators were created", "had no partner", "had no matching post"):
        if warning in summary:
            failures.append("the summary warns: ... %s" % warning)
    if failures:
        fail("; ".join(failures))
    print("ok")


if __name__ == "__main__":
    main()
