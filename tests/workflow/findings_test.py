#!/usr/bin/env python3
"""On the bundled stencil with a slow rank, `orrery findings` names the slow
rank's compute function (`relax` on rank 3) as the root cause of the Late
Sender on ranks 0-2 (issue 10), and Late Sender, Wrong Order stays empty: the
early halos of the next iteration could not have been received first.

Waiting ranks yield their core (mpi_yield_when_idle): with 4 ranks on 2
cores, spinning waiters would otherwise slow the computing ranks down and
blur the imbalance.
"""
import json
import os
import shutil
import tempfile

from workflow_support import ANALYZE, BUILD, ORRERY, fail, rank_totals, run

RANKS = 4
PROGRAM = [os.path.join(BUILD, "examples", "stencil2d-instrumented"), "--size", "2000",
           "--iterations", "30", "--imbalance", "4", "--quiet"]


def main():
    os.environ["OMPI_MCA_mpi_yield_when_idle"] = "1"
    work = tempfile.mkdtemp(prefix="orrery_findings_")
    try:
        exp = os.path.join(work, "exp")
        run([ORRERY, "run", "-o", exp, "--", "mpirun", "--oversubscribe", "-np", str(RANKS)] +
            PROGRAM)
        out, _ = run(["mpirun", "--oversubscribe", "-np", str(RANKS), ANALYZE, exp])
        if "Top findings" not in out or "relax" not in out:
            fail("the analyzer's summary does not name relax among its findings:\n" + out)
        report = os.path.join(exp, "report.h5")
        table, _ = run([ORRERY, "findings", report])
        print(table)
        found = json.loads(run([ORRERY, "findings", report, "--format", "json"])[0])["findings"]
        late = [f for f in found if f["pattern"] == "late_sender"]
        if not late:
            fail("no Late Sender finding: %s" % found)
        late = late[0]
        # The slow rank is not who waits: its neighbours on the 2 x 2 grid
        # (ranks 1 and 2) wait for it directly, rank 0 two hops away. With 4
        # ranks on 2 cores rank 3 also waits whenever a neighbour is
        # descheduled, and rank 0's second-hand waiting can come out smaller.
        waits = rank_totals(report, "late_sender")
        if late["affected"][0]["rank"] == 3 or not waits[3] < min(waits[1], waits[2]):
            fail("Late Sender should hit rank 3's neighbours 1 and 2 more than rank 3: %s, "
                 "per rank %s" % (late["affected"], list(waits)))
        # The top cause outside MPI. With 4 ranks on 2 cores the slow rank's own
        # MPI calls can carry a delay as large as relax's (their time, too, is
        # time the others wait through), so they may rank first; the
        # computation to fix must still be relax on rank 3, with a real share.
        computing = [c for c in late["causes"]
                     if not c["callpath"].rsplit("/", 1)[-1].startswith("MPI_")]
        if not computing:
            fail("no computation among the root causes: %s" % late["causes"])
        cause = computing[0]
        if not cause["callpath"].endswith("/relax") or cause["ranks"][0]["rank"] != 3:
            fail("the top computing root cause is not relax on rank 3: %s" % cause)
        total = sum(c["short_term"] for c in late["causes"])
        if cause["short_term"] < 0.25 * total:
            fail("relax on rank 3 carries only %.3f of %.3f s short-term costs"
                 % (cause["short_term"], total))
        if cause["short_term"] <= 0 or late["gain"] <= 0 or not 0 < late["confidence"]["explained"] <= 1:
            fail("the finding's numbers are not plausible: %s" % late)
        wrong = rank_totals(report, "late_sender_wrong_order").sum()
        waiting = rank_totals(report, "late_sender").sum() + wrong
        if wrong > 0.05 * waiting:
            fail("Late Sender, Wrong Order is %.3f s of %.3f s" % (wrong, waiting))
        print("ok: relax on rank 3 causes %.3f s short-term + %.3f s long-term of Late Sender"
              % (cause["short_term"], cause["long_term"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
