#!/usr/bin/env python3
"""Weak scaling of orrery-analyze (a benchmark: prints numbers, asserts nothing).

The same work per rank (bench/analyzer/scaling_trace.cpp: a ring exchange,
an Allreduce and a rooted collective, barrier or scan per iteration) at
4, 16, 64 and 128 ranks, oversubscribed on whatever cores there are. For
each rank count the trace is written, orrery-analyze runs under mpirun with
the PMPI byte counter (mpi_byte_counter.c) preloaded, and per analysis rank
this prints, per traced event of that rank:
  bytes    what the rank received through MPI (the max over ranks 1..P-1, and
           rank 0, which also receives the cube in the merge)
  cpu      CPU seconds outside MPI (inside MPI an oversubscribed rank mostly
           polls for a core), max over ranks, and the total for reference
  rss      peak resident memory, max over ranks
and each value's ratio to the smallest rank count.

  python3 bench/analyzer/weak_scaling.py --build build [--ranks 4,16,64,128]
      [--events 20000] [--analyzer PATH] [--compare PATH] [--instructions]

--instructions runs every analysis rank once more under callgrind and prints
the instructions it executed outside MPI per traced event (the max over ranks
1..P-1, and rank 0; callgrind_outside_mpi.py): unlike CPU seconds they do not depend on
how many processes share a core, so a growth with the rank count is work
that grows, not time-sharing. Slow (valgrind): use a smaller --events.

--compare runs a second orrery-analyze (e.g. an older build) on the same
traces and prints its numbers too, and checks that both reports hold the same
values.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind_outside_mpi  # noqa: E402


def run_analysis(analyzer, counter, trace, ranks, report):
    counts = tempfile.mkdtemp(prefix="orrery-bytes-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", str(ranks),
               "-x", "LD_PRELOAD=" + counter, "-x", "ORRERY_BYTE_COUNTER_DIR=" + counts,
               analyzer, "--quiet", "-o", report, trace]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    finished = os.path.exists(report) and all(
        os.path.exists(os.path.join(counts, "rank-%d.txt" % r)) for r in range(ranks))
    if done.returncode != 0 and not finished:
        sys.exit("weak_scaling: %s failed:\n%s%s" % (" ".join(command), done.stdout, done.stderr))
    if done.returncode != 0:
        # Open MPI 4.1 on the 2-core VM: at 128 oversubscribed ranks even a program
        # that only calls MPI_Init, MPI_Barrier and MPI_Finalize is reported as
        # "exiting improperly". Every rank wrote its counters (just before
        # PMPI_Finalize) and rank 0 the report, so the analysis itself finished.
        print("weak_scaling: note: mpirun failed at %d ranks after every rank finished the "
              "analysis (report and all counters written); numbers kept" % ranks)
    rows = []
    for r in range(ranks):
        with open(os.path.join(counts, "rank-%d.txt" % r)) as f:
            fields = dict(item.split("=") for item in f.read().split())
        rows.append({k: float(v) for k, v in fields.items()})
    shutil.rmtree(counts)
    return rows


def count_instructions(analyzer, trace, ranks, report):
    """Instructions outside MPI of every analysis rank's main thread (callgrind), by rank."""
    out = tempfile.mkdtemp(prefix="orrery-callgrind-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", str(ranks), "--mca", "mpi_yield_when_idle",
               "1", "valgrind", "--tool=callgrind", "--separate-threads=yes",
               "--callgrind-out-file=" + os.path.join(out, "cg.%q{OMPI_COMM_WORLD_RANK}"),
               analyzer, "--quiet",
               "-o", report, trace]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    mains = [os.path.join(out, "cg.%d-01" % r) for r in range(ranks)]
    mains = [path for path in mains if os.path.exists(path)]
    if len(mains) != ranks:
        sys.exit("weak_scaling: callgrind at %d ranks wrote %d files (exit %d):\n%s" % (
            ranks, len(mains), done.returncode, done.stderr[-2000:]))
    counts = [callgrind_outside_mpi.outside_mpi(path)[0] for path in mains]
    shutil.rmtree(out)
    return counts


def same_values(first, second):
    check = ("import h5py, numpy, sys\n"
             "a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])\n"
             "ok = set(a['values']) == set(b['values']) and all(\n"
             "    numpy.array_equal(a['values'][k][()], b['values'][k][()]) for k in a['values'])\n"
             "sys.exit(0 if ok else 1)\n")
    return subprocess.run(["/usr/bin/python3", "-c", check, first, second]).returncode == 0


def summarize(rows, events):
    others = rows[1:] or rows
    return {
        "bytes": max(r["bytes"] for r in others) / events,
        "bytes0": rows[0]["bytes"] / events,
        "cpu": max(r["cpu"] - r["cpu_in_mpi"] for r in rows) / events,
        "cpu_others": max(r["cpu"] - r["cpu_in_mpi"] for r in others) / events,
        "cpu0": (rows[0]["cpu"] - rows[0]["cpu_in_mpi"]) / events,
        "cpu_total": max(r["cpu"] for r in rows) / events,
        "rss": max(r["rss_kb"] for r in rows) / 1024.0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--ranks", default="4,16,64,128")
    parser.add_argument("--events", type=int, default=20000, help="events per rank")
    parser.add_argument("--analyzer", help="orrery-analyze to measure (default: BUILD/bin)")
    parser.add_argument("--compare", help="a second orrery-analyze to measure on the same traces")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions outside MPI per event (callgrind; slow)")
    args = parser.parse_args()
    analyzer = args.analyzer or os.path.join(args.build, "bin", "orrery-analyze")
    counter = os.path.abspath(os.path.join(args.build, "lib", "liborrery_mpi_byte_counter.so"))
    generator = os.path.join(args.build, "bin", "scaling_trace")
    binaries = [("analyzer", analyzer)] + ([("compare", args.compare)] if args.compare else [])

    results = {name: [] for name, _ in binaries}
    for ranks in [int(p) for p in args.ranks.split(",")]:
        trace = tempfile.mkdtemp(prefix="orrery-scaling-%d-" % ranks)
        shutil.rmtree(trace)
        subprocess.run([generator, trace, str(ranks), str(args.events)], check=True)
        # Events per rank, as the generator writes them (16 per iteration, main's 2).
        events = (args.events - 2) // 16 * 16 + 2
        reports = []
        for name, binary in binaries:
            report = os.path.join(trace, name + ".h5")
            rows = run_analysis(binary, counter, trace, ranks, report)
            summary = summarize(rows, events)
            if args.instructions:
                counts = count_instructions(binary, trace, ranks, report)
                summary["instr"] = max(counts[1:] or counts) / events
                summary["instr0"] = counts[0] / events
            results[name].append((ranks, summary))
            reports.append(report)
        if len(reports) == 2 and not same_values(*reports):
            print("weak_scaling: the two analyzers' reports differ at %d ranks" % ranks)
        shutil.rmtree(trace)

    print("events per rank: %d; bytes received per traced event (max over ranks 1..P-1, and "
          "rank 0), CPU s per million events (outside MPI, max rank; total), peak RSS (MiB, max "
          "rank); (xN) = ratio to the first rank count" % events)
    for name, binary in binaries:
        print("\n%s (%s)" % (name, binary))
        print("%6s %16s %16s %16s %12s %14s" % ("ranks", "bytes/event", "rank 0 b/event",
                                               "cpu us/event", "cpu total", "peak RSS MiB"))
        base = results[name][0][1]
        for ranks, s in results[name]:
            print("%6d %9.2f (x%4.2f) %9.2f (x%4.2f) %9.2f (x%4.2f) %12.2f %7.1f (x%4.2f)" % (
                ranks, s["bytes"], s["bytes"] / base["bytes"], s["bytes0"],
                s["bytes0"] / base["bytes0"], s["cpu"] * 1e6, s["cpu"] / base["cpu"],
                s["cpu_total"] * 1e6, s["rss"], s["rss"] / base["rss"]))
        # Rank 0 also merges and writes the report, whose size grows with P
        # (the cube is call paths x locations): the other ranks show the
        # per-event work.
        print("%6s %24s %24s" % ("ranks", "cpu us/event, ranks 1..", "cpu us/event, rank 0"))
        for ranks, s in results[name]:
            print("%6d %15.2f (x%4.2f) %15.2f (x%4.2f)" % (
                ranks, s["cpu_others"] * 1e6, s["cpu_others"] / base["cpu_others"],
                s["cpu0"] * 1e6, s["cpu0"] / base["cpu0"]))
        if args.instructions:
            print("%6s %24s %24s" % ("ranks", "instr/event, ranks 1..", "instr/event, rank 0"))
            for ranks, s in results[name]:
                print("%6d %15.0f (x%4.2f) %15.0f (x%4.2f)" % (
                    ranks, s["instr"], s["instr"] / base["instr"], s["instr0"],
                    s["instr0"] / base["instr0"]))


if __name__ == "__main__":
    main()
