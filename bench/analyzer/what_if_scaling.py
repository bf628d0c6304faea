#!/usr/bin/env python3
"""Prediction against reality across sizes (issue 11): a strong-scaling
workload (e2e_what_if_pingpong strong: per iteration every rank sleeps
16·US/P and joins an MPI_Allreduce; sleeping does not compete for cores, so
oversubscription distorts it little) is measured and analyzed at 2, 4, 8 and
16 ranks; `orrery scaling --predict 32` then predicts every call path at 32
ranks, and a measured 32-rank run says how far off it is.

    python3 bench/analyzer/what_if_scaling.py --build build [--iterations N] [--us US]

Prints, per call path, the model, the prediction, the measured value and the
relative error.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def per_process_time(report, inclusive=True):
    """Call path label -> mean per process of time (all its sub-metrics), inclusive or not."""
    with h5py.File(report, "r") as f:
        metrics = f["metrics"][:]
        names = [m["name"].decode() if isinstance(m["name"], bytes) else m["name"] for m in metrics]
        parents = [int(m["parent"]) for m in metrics]
        rows = [names.index("time")]
        for m in range(len(names)):
            if parents[m] in rows:
                rows.append(m)
        values = sum(f["values/" + names[m]][:] for m in rows)
        callpaths = f["callpaths"][:]
        regions = [r["name"].decode() if isinstance(r["name"], bytes) else r["name"]
                   for r in f["regions"][:]]
        per_callpath = np.nansum(values, axis=1) / values.shape[1]
    labels, values = [], per_callpath.copy()
    for c, (parent, region) in enumerate(callpaths):
        labels.append(regions[region] if parent < 0 else labels[parent] + "/" + regions[region])
    for c in reversed(range(len(callpaths))):
        parent = callpaths[c][0]
        if parent >= 0 and inclusive:
            values[parent] += values[c]
    return dict(zip(labels, values))


def is_startup(label):
    """MPI_Init*, MPI_Finalize: the start-up and shut-down of the processes."""
    last = label.rsplit("/", 1)[-1]
    return last.startswith("MPI_Init") or last == "MPI_Finalize"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--us", type=int, default=5000)
    args = parser.parse_args()
    binary = os.path.join(os.path.abspath(args.build), "bin")
    work = tempfile.mkdtemp(prefix="orrery-what-if-scaling-")
    env = dict(os.environ, OMPI_MCA_mpi_yield_when_idle="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    reports = {}
    for p in [2, 4, 8, 16, 32]:
        exp, observed = os.path.join(work, "p%d" % p), os.path.join(work, "observed%d" % p)
        os.makedirs(observed)
        mpirun = ["mpirun", "--oversubscribe", "-np", str(p)]
        subprocess.run([os.path.join(binary, "orrery"), "run", "-o", exp, "--"] + mpirun +
                       [os.path.join(binary, "e2e_what_if_pingpong"), observed, "strong",
                        str(args.iterations), str(args.us)],
                       check=True, capture_output=True, env=env, timeout=600)
        subprocess.run(mpirun + [os.path.join(binary, "orrery-analyze"), exp, "-q"], check=True,
                       capture_output=True, env=env, timeout=600)
        reports[p] = os.path.join(exp, "report.h5")
        print("measured and analyzed %d ranks" % p, flush=True)
    result = subprocess.run([os.path.join(binary, "orrery"), "scaling"] +
                            [reports[p] for p in [2, 4, 8, 16]] + ["--predict", "32", "--format", "json"],
                            check=True, capture_output=True, text=True)
    measured = per_process_time(reports[32])
    print("%-36s %-44s %10s %10s %8s" % ("call path", "model", "predicted", "measured", "error"))
    predicted = {}
    for row in json.loads(result.stdout):
        real = measured.get(row["callpath"])
        if real is None:
            continue
        predicted[row["callpath"]] = row["predicted"]
        print("%-36s %-44s %10.6f %10.6f %+7.1f%%" % (row["callpath"], row["model"], row["predicted"],
                                                      real, 100 * (row["predicted"] - real) / real))
    # The program's own work: every call path's exclusive time but MPI_Init's and
    # MPI_Finalize's (start-up and shut-down of 32 processes on a few cores are not
    # the workload), each modelled on its own (--exclusive), summed.
    result = subprocess.run([os.path.join(binary, "orrery"), "scaling", "--exclusive"] +
                            [reports[p] for p in [2, 4, 8, 16]] + ["--predict", "32", "--format", "json"],
                            check=True, capture_output=True, text=True)
    exclusive = per_process_time(reports[32], inclusive=False)
    guess = sum(row["predicted"] for row in json.loads(result.stdout) if not is_startup(row["callpath"]))
    real = sum(value for label, value in exclusive.items() if not is_startup(label))
    print("%-36s %-44s %10.6f %10.6f %+7.1f%%" % ("the run without MPI_Init/Finalize",
                                                  "(sum of exclusive models)", guess, real,
                                                  100 * (guess - real) / real))

if __name__ == "__main__":
    sys.exit(main())
