#!/usr/bin/env python3
"""Fewer analysis processes than traced ranks (`mpirun -np M orrery-analyze
EXP`, M < N): each process replays a contiguous block of traced ranks, and the
report must be the same as with one process per traced rank, every dataset
bit for bit (same_cube.py). Traces of 4 and 5 ranks: communicators split and
duplicated (and a self dup), a split communicator, non-blocking point to
point, a neighbourhood exchange over a distributed graph, a chain of Late
Senders (delay analysis), a what-if replay, an incomplete run (no
MPI_Finalize) and, if built, a hybrid OpenMP program. M > N is a clear error;
a corrupt trace fails with the same one line as on N processes.

Uses ORRERY_BUILD_DIR (bin/orrery, bin/orrery-analyze, bin/e2e_*).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import same_cube  # noqa: E402
from e2e_checks import BIN, MPIRUN, check, verdict  # noqa: E402



def measure(work, name, ranks, program, args, environment=None):
    experiment = os.path.join(work, name)
    outdir = os.path.join(work, name + "-observed")
    os.makedirs(outdir)
    args = [outdir if a == "OUT" else a for a in args]
    command = [os.path.join(BIN, "orrery"), "run", "-o", experiment, "--"] + MPIRUN + \
              ["-np", str(ranks), os.path.join(BIN, program)] + args
    env = dict(os.environ, **(environment or {}))
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    if not os.path.isdir(experiment):
        print(result.stdout + result.stderr)
        sys.exit("FAIL: measuring %s failed (%d)" % (name, result.returncode))
    return experiment


def analyze(experiment, processes, label, extra=()):
    report = os.path.join(os.path.dirname(experiment), "%s-np%d.h5" % (label, processes))
    command = MPIRUN + ["-np", str(processes), os.path.join(BIN, "orrery-analyze"), experiment,
                        "-q", "-o", report] + list(extra)
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return result, report


def same_as_one_per_rank(experiment, ranks, label, processes, extra=()):
    reference, reference_report = analyze(experiment, ranks, label, extra)
    if reference.returncode != 0:
        check(False, "%s: -np %d analysis failed: %s" % (label, ranks, reference.stderr[-500:]))
        return None
    for m in processes:
        result, report = analyze(experiment, m, label, extra)
        if result.returncode != 0:
            check(False, "%s: -np %d failed (%d): %s" % (label, m, result.returncode,
                                                         result.stderr[-500:]))
            continue
        found = same_cube.differences(reference_report, report)
        check(not found, "%s: %d traced ranks on %d processes: the same report as on %d%s" % (
            label, ranks, m, ranks, "" if not found else " (" + "; ".join(found[:3]) + ")"))
    return reference_report


def main():
    work = tempfile.mkdtemp(prefix="orrery-fewer-")
    try:
        mix = measure(work, "comm_mix", 4, "e2e_comm_mix", ["finalize"])
        mix_report = same_as_one_per_rank(mix, 4, "comm_mix", [2, 3, 1])
        split = measure(work, "split", 5, "e2e_split_comm", ["OUT"])
        split_report = same_as_one_per_rank(split, 5, "split_comm", [2, 3])
        nonblocking = measure(work, "nonblocking", 4, "e2e_late_sender_nb", ["OUT"])
        same_as_one_per_rank(nonblocking, 4, "late_sender_nb", [2, 3])
        neighbor = measure(work, "neighbor", 4, "e2e_neighbor_exchange", ["OUT"])
        same_as_one_per_rank(neighbor, 4, "neighbor_exchange", [2, 3])
        chain = measure(work, "chain", 5, "e2e_delay_chain", ["OUT", "0.1"])
        same_as_one_per_rank(chain, 5, "delay_chain", [2, 3])
        pingpong = measure(work, "pingpong", 4, "e2e_what_if_pingpong",
                           ["OUT", "imbalance", "20", "200"])
        same_as_one_per_rank(pingpong, 4, "what_if", [3],
                             ["--what-if", "latency=20us,bandwidth=100MB/s"])
        # A few seconds for the ranks mpirun ends after the first exit() to
        # write their traces (on a loaded node the default grace is too short).
        incomplete = measure(work, "incomplete", 4, "e2e_comm_mix", ["exit"],
                             {"OMPI_MCA_odls_base_sigkill_timeout": "3"})
        same_as_one_per_rank(incomplete, 4, "incomplete", [2, 3])
        if os.path.exists(os.path.join(BIN, "openmp_hybrid")):
            hybrid = measure(work, "hybrid", 3, "openmp_hybrid", ["OUT", "2"],
                             {"OMP_NUM_THREADS": "2"})
            same_as_one_per_rank(hybrid, 3, "openmp_hybrid", [2])

        # The comparison can fail: two different runs are not the same report.
        if mix_report and split_report:
            check(bool(same_cube.differences(mix_report, split_report)),
                  "the comparison tells different reports apart")
        # More processes than traced ranks: one clear line, exit 1.
        result, _ = analyze(mix, 5, "too_many")
        lines = [line for line in result.stderr.splitlines() if "orrery-analyze" in line]
        check(result.returncode == 1 and len(lines) == 1 and "4 processes or fewer" in lines[0],
              "5 processes for 4 traced ranks: exit 1 and one line (%r)" % result.stderr)
        # A corrupt trace fails the same way on fewer processes: one line, exit 1.
        corrupt = os.path.join(work, "corrupt")
        shutil.copytree(mix, corrupt)
        with open(os.path.join(corrupt, "traces", "2.evt"), "r+b") as f:
            f.truncate(100)
        errors = []
        for m in (4, 2):
            result, _ = analyze(corrupt, m, "corrupt")
            errors.append([line for line in result.stderr.splitlines() if "orrery-analyze" in line])
            check(result.returncode == 1 and len(errors[-1]) == 1 and "rank 2" in errors[-1][0],
                  "corrupt trace on %d processes: exit 1, one line naming rank 2 (%r)" % (
                      m, result.stderr[-300:]))
        check(errors[0] == errors[1], "the same error on 4 and on 2 processes")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
