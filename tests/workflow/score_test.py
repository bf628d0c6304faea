#!/usr/bin/env python3
"""profile -> `orrery score` -> filtered trace: the tiny hot function is
suggested for exclusion (and nothing that calls MPI or the root is), the
score's estimate for it matches its visits, and a trace measured with the
suggested filter and buffer is smaller than the unfiltered one and fits its
buffer (no flush), while the unfiltered run with that buffer had to flush.

    score_test.py PROGRAM      (tests/workflow/hot_function.c, instrumented)
"""
import json
import os
import shutil
import sys
import tempfile

from workflow_support import ORRERY, fail, run

RANKS = 2
BYTES_PER_VISIT = 26  # Enter + Leave in the measurement buffer (docs/report.md)


def statistics(experiment):
    with open(os.path.join(experiment, "run.json")) as f:
        return json.load(f)["measurement"]["statistics"]["total"]


def main():
    program = sys.argv[1]
    work = tempfile.mkdtemp(prefix="orrery_score_")
    try:
        profile = os.path.join(work, "profile")
        out, err = run([ORRERY, "run", "-m", "profile", "-o", profile, "--", "mpirun", "-np",
                        str(RANKS), program])
        calls = int(out.split("tiny calls per rank: ")[1].split()[0])
        if "orrery score " + profile not in err:
            fail("the profile run's closing hint does not mention orrery score:\n" + err)

        table, _ = run([ORRERY, "score", profile])
        print(table)
        score = json.loads(run([ORRERY, "score", profile, "--format", "json"])[0])
        regions = {r["region"]: r for r in score["regions"]}
        for name in ("tiny", "work", "main"):
            if name not in regions:
                fail("region %s missing from the score: %s" % (name, sorted(regions)))
        if not regions["tiny"]["exclude"]:
            fail("tiny (%d visits) is not suggested for exclusion: %s" % (calls, regions["tiny"]))
        excluded = sorted(name for name, r in regions.items() if r["exclude"])
        if excluded != ["tiny"]:
            fail("excluded %s; expected only tiny" % excluded)
        for rank_bytes in regions["tiny"]["bytes_per_rank"]:
            if rank_bytes != calls * BYTES_PER_VISIT:
                fail("tiny's estimate per rank %d, expected %d" % (rank_bytes, calls * BYTES_PER_VISIT))
        with open(score["filter"]) as f:
            rules = [line.split() for line in f if line.strip() and not line.startswith("#")]
        if rules != [["EXCLUDE", "tiny"]]:
            fail("filter file rules %s" % rules)
        buffer = score["buffer_filtered"]
        print("suggested buffer with the filter: %s (without: %s)" % (buffer, score["buffer"]))

        filtered = os.path.join(work, "filtered")
        run([ORRERY, "run", "-o", filtered, "--filter", score["filter"], "--buffer", buffer, "--",
             "mpirun", "-np", str(RANKS), program])
        unfiltered = os.path.join(work, "unfiltered")
        run([ORRERY, "run", "-o", unfiltered, "--buffer", buffer, "--", "mpirun", "-np",
             str(RANKS), program])
        small, large = statistics(filtered), statistics(unfiltered)
        print("filtered: %s\nunfiltered: %s" % (small, large))
        if not small["bytes"] < large["bytes"] / 4:
            fail("the filtered trace (%d bytes) is not much smaller than the unfiltered (%d)"
                 % (small["bytes"], large["bytes"]))
        if small["flushes"] != 0:
            fail("the filtered run flushed its buffer %d times" % small["flushes"])
        if large["flushes"] == 0:
            fail("the unfiltered run fitted the filtered run's buffer; the test program is too small")
        if large["events"] - small["events"] < 2 * calls * RANKS:
            fail("the filter removed %d events, expected at least %d"
                 % (large["events"] - small["events"], 2 * calls * RANKS))
        print("PASS: filter shrinks the trace from %d to %d bytes" % (large["bytes"], small["bytes"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
