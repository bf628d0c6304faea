#!/usr/bin/env python3
"""orrery-analyze as a user runs it: exit statuses (0, 1 bad input, 2 bad
usage), one clear message, the summary, and report.h5 read by h5dump and
h5py with exactly the schema of docs/design.md §5."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BUILD = os.environ["ORRERY_BUILD_DIR"]
ANALYZE = os.path.join(BUILD, "bin", "orrery-analyze")
MAKE_TRACE = os.path.join(BUILD, "bin", "analyzer_make_trace")
failures = []

# The metric names of docs/design.md §4 (stable contract).
DESIGN_METRICS = """time visits execution mpi mpi_management mpi_init_exit mpi_synchronization
mpi_sync_collective wait_at_barrier barrier_completion mpi_rma_synchronization mpi_communication
mpi_point2point late_sender late_sender_wrong_order late_receiver mpi_collective early_reduce
early_scan late_broadcast wait_at_nxn nxn_completion mpi_rma_communication mpi_io overhead
bytes_sent bytes_received bytes_coll_out bytes_coll_in sends receives collectives
late_sender_count late_receiver_count init_completion finalize_wait wait_at_neighbor
omp omp_barrier_wait""".split()
# Root causes and wait-state classes (issue 10).
DESIGN_METRICS += """delay delay_mpi delay_p2p delay_late_sender delay_late_sender_short_term
delay_late_sender_long_term delay_late_receiver delay_late_receiver_short_term
delay_late_receiver_long_term delay_collective delay_barrier delay_barrier_short_term
delay_barrier_long_term delay_nxn delay_nxn_short_term delay_nxn_long_term
delay_late_broadcast delay_late_broadcast_short_term delay_late_broadcast_long_term
delay_early_reduce delay_early_reduce_short_term delay_early_reduce_long_term wait_direct
wait_indirect wait_propagating wait_terminal omp_idle_threads""".split()
# Critical path and load imbalance (issue 10).
DESIGN_METRICS += """critical_path critical_path_imbalance performance_impact imbalance imbalance_above
imbalance_above_single imbalance_below imbalance_below_bypass imbalance_below_singularity""".split()


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def mpirun(np_, args):
    command = ["mpirun", "--oversubscribe", "-np", str(np_), ANALYZE] + args
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_schema(path):
    h5dump = subprocess.run(["h5dump", "-H", path], capture_output=True, text=True)
    check(h5dump.returncode == 0 and "GROUP \"/\"" in h5dump.stdout, "h5dump -H reads the report")
    with h5py.File(path, "r") as f:
        attrs = {k: f.attrs[k] for k in f.attrs}
        check(text(attrs.get("format")) == "orrery-cube", "format attribute is orrery-cube")
        check(int(np.asarray(attrs.get("format_version"))) == 1, "format_version is 1")
        for key in ("creator", "experiment", "created"):
            check(key in attrs and text(attrs[key]) != "", "root attribute %s present" % key)
        required = {"metrics", "regions", "callpaths", "locations", "values"}
        # docs/design.md §5 additions (optional; readers accept their absence).
        optional = {"efficiency", "groups", "group_values", "clock_corrections"}
        check(required <= set(f.keys()) <= required | optional,
              "top level holds metrics, regions, callpaths, locations, values "
              "(and only docs/design.md §5's optional additions)")
        if "groups" in f:
            groups = f["groups"]
            check(list(groups.dtype.names) == ["name", "parent", "similarity"] and len(groups) > 0,
                  "/groups has name, parent, similarity")
            values = f["group_values/time"]
            check(values.dtype == np.float64 and values.shape == (len(groups), 4),
                  "/group_values/time is float64 [groups][locations]")
            check(all(p == -1 or 0 <= p < i for i, p in enumerate(groups["parent"])) and
                  all(0 <= s <= 1 for s in groups["similarity"]),
                  "/groups parents precede their children, similarities in 0-1")
        if "clock_corrections" in f:
            table = f["clock_corrections"]
            check(list(table.dtype.names) == ["rank", "violations", "corrected", "moved", "max_shift"]
                  and len(table) == 4, "/clock_corrections has one row per rank")
        fields = {
            "metrics": ["name", "display_name", "parent", "unit", "description"],
            "regions": ["name", "file", "line", "paradigm"],
            "callpaths": ["parent", "region"],
            "locations": ["rank", "thread", "node", "name"],
        }
        for table, names in fields.items():
            dataset = f[table]
            check(dataset.ndim == 1 and dataset.dtype.names is not None,
                  "/%s is a 1-D compound dataset" % table)
            check(all(n in dataset.dtype.names for n in names),
                  "/%s has fields %s (has %s)" % (table, names, dataset.dtype.names))
        metrics = f["metrics"][()]
        names = [text(m["name"]) for m in metrics]
        check(sorted(names) == sorted(DESIGN_METRICS), "metric names are exactly docs/design.md §4's")
        check(all(int(m["parent"]) < i for i, m in enumerate(metrics)),
              "metrics are in pre-order (parent before child)")
        check(all(text(m["unit"]) in ("sec", "occ", "bytes") for m in metrics), "units are sec/occ/bytes")
        callpaths = f["callpaths"][()]
        check(all(int(c["parent"]) < i for i, c in enumerate(callpaths)), "call paths in pre-order")
        n_cp, n_loc = len(callpaths), len(f["locations"])
        for name in names:
            values = f["values"][name]
            check(values.dtype == np.float64 and values.shape == (n_cp, n_loc),
                  "/values/%s is float64 [%d][%d]" % (name, n_cp, n_loc))
            if n_cp * n_loc > 1:
                check(values.chunks is not None and values.compression is not None,
                      "/values/%s is chunked and compressed" % name)
        # Known values of the generated trace: late sender of 38 ms on rank 0.
        regions = [text(r["name"]) for r in f["regions"][()]]
        recv = [i for i, c in enumerate(callpaths) if regions[int(c["region"])] == "MPI_Recv"]
        late = f["values"]["late_sender"][()][recv, 0].sum()
        check(abs(late - 0.038) < 1e-9, "late_sender on rank 0 is 38 ms (got %r)" % late)
        # Exclusive in both trees: all time metrics sum to the wall time of each rank.
        time_rows = {0}
        for i, m in enumerate(metrics):
            if int(m["parent"]) in time_rows:
                time_rows.add(i)
        total = sum(f["values"][names[i]][()].sum(axis=0) for i in time_rows)
        check(np.allclose(total, 0.110), "time metrics add up to 110 ms per rank (got %s)" % total)


def main():
    work = tempfile.mkdtemp(prefix="orrery-analyzer-cli-")
    try:
        exp4 = os.path.join(work, "exp4")
        subprocess.run([MAKE_TRACE, exp4, "4"], check=True)

        r = mpirun(2, [])
        check(r.returncode == 2, "no experiment: exit 2 (got %d)" % r.returncode)
        r = mpirun(2, ["--bogus", exp4])
        check(r.returncode == 2, "unknown option: exit 2 (got %d)" % r.returncode)
        r = mpirun(1, ["--help"])
        check(r.returncode == 0 and "orrery-analyze" in r.stdout, "--help: exit 0 with usage")
        r = mpirun(2, [os.path.join(work, "nothing-here")])
        check(r.returncode == 1, "missing experiment: exit 1 (got %d)" % r.returncode)
        check(r.stderr.count("does not exist") == 1,
              "missing experiment: one clear message (stderr: %r)" % r.stderr)
        check("Traceback" not in r.stderr and "core dumped" not in r.stderr, "no crash output")
        # Fewer processes than traced ranks replay blocks of ranks (same cube:
        # tests/e2e/fewer_processes.py); more than traced ranks is an error.
        r = mpirun(5, [exp4, "-q", "-o", os.path.join(work, "more.h5")])
        check(r.returncode == 1 and "mpirun -np 4" in r.stderr and "or fewer" in r.stderr,
              "more processes than ranks: exit 1, says how to run it (stderr: %r)" % r.stderr)

        r = mpirun(4, [exp4])
        check(r.returncode == 0, "analysis of a valid trace: exit 0 (stderr: %r)" % r.stderr)
        report = os.path.join(exp4, "report.h5")
        check(os.path.exists(report), "EXP/report.h5 written")
        check("Late Sender" in r.stdout and "main/solve/MPI_Recv" in r.stdout,
              "summary names the wait state and its call path")
        check("Report: " + report in r.stdout, "summary says where the report is")
        check(r.stdout.count("Total time") == 1, "summary printed once (rank 0)")
        check(" events (Orrery's OTF2 decoder)" in r.stdout,
              "the progress says Orrery's decoder read the events (stdout: %r)" % r.stdout[:600])
        forced = subprocess.run(["mpirun", "--oversubscribe", "-x", "ORRERY_TRACE_DECODER=otf2", "-np", "4",
                                 ANALYZE, exp4, "-o", os.path.join(work, "libotf2.h5")],
                                capture_output=True, text=True, timeout=60)
        check(forced.returncode == 0 and "(libotf2 read 4 of 4 ranks" in forced.stdout,
              "ORRERY_TRACE_DECODER=otf2: the progress says libotf2 read all 4 ranks (stdout: %r)"
              % forced.stdout[:600])
        if os.path.exists(report):
            check_schema(report)

        other = os.path.join(work, "other.h5")
        r = mpirun(4, [exp4, "-o", other, "-q"])
        check(r.returncode == 0 and os.path.exists(other), "-o writes the report elsewhere")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
