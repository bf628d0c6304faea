#!/usr/bin/env python3
"""Large cubes are merged block by block (docs/analyzer.md, "Scale"): rank 0
asks blocks of ranks for their values and writes each metric in blocks of
locations, deriving the comparing metrics (critical-path imbalance, the
imbalance heuristic, the function groups) in passes over the blocks. Forced
on small traces through the environment (ORRERY_MERGE_MEMORY_VALUES: from
which size a cube is large; ORRERY_MERGE_BLOCK_VALUES: values per block of
ranks), the report must be the one of the ordinary merge, every dataset bit
for bit (same_cube.py), and so must the closing summary; the report of the
large merge has the band chunk layout (so the large merge did run).

Uses ORRERY_BUILD_DIR (bin/orrery, bin/orrery-analyze, bin/e2e_*).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import same_cube  # noqa: E402
from e2e_checks import BIN, MPIRUN, check, verdict  # noqa: E402
from fewer_processes import measure  # noqa: E402

# (label, environment): one rank per block and bands one location wide; blocks
# of several ranks that do not line up with the bands of three locations.
SETTINGS = [("one rank per block", {"ORRERY_MERGE_BLOCK_VALUES": "1",
                                    "ORRERY_MERGE_MEMORY_VALUES": "1"}),
            ("uneven blocks", {"ORRERY_MERGE_BLOCK_VALUES": "40",
                               "ORRERY_MERGE_MEMORY_VALUES": "60"})]


def analyze(experiment, processes, label, environment, extra=()):
    report = os.path.join(os.path.dirname(experiment), "%s-np%d.h5" % (label, processes))
    command = MPIRUN + ["-np", str(processes), os.path.join(BIN, "orrery-analyze"), experiment,
                        "-o", report] + list(extra)
    result = subprocess.run(command, capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, **environment))
    # The closing summary, without the progress lines (their clock readings)
    # and the report's name.
    summary = [line for line in result.stdout.splitlines()
               if report not in line and not line.startswith("orrery-analyze: [")]
    return result, report, summary


def chunk_columns(report):
    with h5py.File(report, "r") as f:
        dataset = f["values/time"]
        return dataset.chunks[1] if dataset.chunks else None


def same_as_ordinary(experiment, ranks, label, processes=None, extra=()):
    processes = processes or ranks
    reference, reference_report, reference_summary = analyze(
        experiment, processes, label + "-ordinary", {}, extra)
    if reference.returncode != 0:
        check(False, "%s: the ordinary analysis failed: %s" % (label, reference.stderr[-500:]))
        return
    for name, environment in SETTINGS:
        tag = "%s-%s" % (label, name.replace(" ", "_"))
        result, report, summary = analyze(experiment, processes, tag, environment, extra)
        if result.returncode != 0:
            check(False, "%s (%s): failed (%d): %s" % (label, name, result.returncode,
                                                      result.stderr[-500:]))
            continue
        found = same_cube.differences(reference_report, report)
        check(not found, "%s on %d processes (%s): the same report as the ordinary merge%s" % (
            label, processes, name, "" if not found else " (" + "; ".join(found[:3]) + ")"))
        check(summary == reference_summary, "%s (%s): the same closing summary" % (label, name))
        if name == "one rank per block":  # bands one location wide
            columns = chunk_columns(report)
            check(columns == 1 and chunk_columns(reference_report) > 1,
                  "%s (%s): written in the large-cube layout (chunks %s columns wide)" % (
                      label, name, columns))


def main():
    work = tempfile.mkdtemp(prefix="orrery-large-cube-")
    try:
        mix = measure(work, "comm_mix", 4, "e2e_comm_mix", ["finalize"])
        same_as_ordinary(mix, 4, "comm_mix")
        same_as_ordinary(mix, 4, "comm_mix_fewer", processes=2)
        chain = measure(work, "chain", 5, "e2e_delay_chain", ["OUT", "0.1"])
        same_as_ordinary(chain, 5, "delay_chain")
        pingpong = measure(work, "pingpong", 4, "e2e_what_if_pingpong",
                           ["OUT", "imbalance", "20", "200"])
        same_as_ordinary(pingpong, 4, "imbalance")
        # Rank 2 SIGKILLed, no trace: its values NaN (the derived ones 0).
        killed = measure(work, "killed", 4, "e2e_killed_rank", ["OUT"],
                         {"OMPI_MCA_odls_base_sigkill_timeout": "3"})
        same_as_ordinary(killed, 4, "killed_rank")
        if os.path.exists(os.path.join(BIN, "openmp_hybrid")):
            hybrid = measure(work, "hybrid", 3, "openmp_hybrid", ["OUT", "2"],
                             {"OMP_NUM_THREADS": "2"})
            same_as_ordinary(hybrid, 3, "openmp_hybrid")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
