#!/usr/bin/env python3
"""A trace analyzed under a memory limit smaller than it (issue 9, item 5):
`orrery-analyze --memory-limit` keeps the event tables beyond the limit in a
scratch file next to the report; the report must be the same as without the
limit, every dataset bit for bit (same_cube.py), on one process per traced
rank and on fewer; the summary says how much went to scratch files; no
scratch file is left behind; a limit that is not a size is a usage error.

Uses ORRERY_BUILD_DIR (bin/orrery, bin/orrery-analyze, bin/e2e_collective_ring).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import same_cube  # noqa: E402
from e2e_checks import BIN, MPIRUN, check, verdict  # noqa: E402

RANKS = 4


def analyze(experiment, processes, report, extra=()):
    command = MPIRUN + ["-np", str(processes), os.path.join(BIN, "orrery-analyze"), experiment,
                        "-o", report] + list(extra)
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def main():
    work = tempfile.mkdtemp(prefix="orrery-memlimit-")
    try:
        experiment = os.path.join(work, "ring")
        run = subprocess.run([os.path.join(BIN, "orrery"), "run", "-o", experiment, "--"] + MPIRUN +
                             ["-np", str(RANKS), os.path.join(BIN, "e2e_collective_ring"), "2000"],
                             capture_output=True, text=True, timeout=180)
        if not os.path.isdir(experiment):
            print(run.stdout + run.stderr)
            sys.exit("FAIL: measuring failed (%d)" % run.returncode)
        trace_bytes = sum(os.path.getsize(os.path.join(experiment, "traces", name))
                          for name in os.listdir(os.path.join(experiment, "traces")))
        reference = os.path.join(work, "unlimited.h5")
        result = analyze(experiment, RANKS, reference)
        check(result.returncode == 0 and "Memory limit" not in result.stdout,
              "without a limit (the default is half the node's memory): no scratch file")
        limit = 64 * 1024  # below one traced rank's tables (its first chunk alone is 1 MiB)
        check(limit * RANKS < trace_bytes, "the limit (%d B per rank) is below the trace (%d B)" %
              (limit, trace_bytes))
        for processes in (RANKS, 2):
            outdir = os.path.join(work, "np%d" % processes)
            os.makedirs(outdir)
            report = os.path.join(outdir, "limited.h5")
            result = analyze(experiment, processes, report, ["--memory-limit", "64K"])
            summary = [line for line in result.stdout.splitlines() if line.startswith("Memory limit")]
            check(result.returncode == 0 and len(summary) == 1 and
                  ("of %d ranks kept in scratch files" % RANKS) in summary[0],
                  "-np %d --memory-limit 64K: the summary says all %d ranks used scratch files (%s)" % (
                      processes, RANKS, summary or result.stderr[-400:]))
            found = same_cube.differences(reference, report) if result.returncode == 0 else ["failed"]
            check(not found, "-np %d under the limit: the same report as without%s" % (
                processes, "" if not found else " (" + "; ".join(found[:3]) + ")"))
            check(os.listdir(outdir) == ["limited.h5"], "no scratch file left in %s (%s)" % (
                outdir, os.listdir(outdir)))
        result = analyze(experiment, 1, os.path.join(work, "x.h5"), ["--memory-limit", "lots"])
        lines = [line for line in result.stderr.splitlines() if "orrery-analyze" in line]
        check(result.returncode == 2 and len(lines) == 1 and "not a size" in lines[0],
              "--memory-limit lots: exit 2, one line (%r)" % lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
