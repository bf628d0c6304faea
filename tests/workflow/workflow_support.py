"""Helpers of the workflow tests: running the build's commands and reading cubes."""
import os
import subprocess
import sys

import h5py
import numpy as np

BUILD = os.environ.get("ORRERY_BUILD_DIR", "build")
ORRERY = os.path.join(BUILD, "bin", "orrery")
ANALYZE = os.path.join(BUILD, "bin", "orrery-analyze")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, timeout=180, check=True):
    """Runs a command; returns (stdout, stderr); fails the test on a non-zero exit."""
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        print(result.stdout + result.stderr)
        fail("%s exited with %d" % (" ".join(command[:3]), result.returncode))
    return result.stdout, result.stderr


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def callpath_labels(f):
    names = [text(r["name"]) for r in f["regions"][:]]
    labels = []
    for row in f["callpaths"][:]:
        name = names[row["region"]]
        labels.append(name if row["parent"] < 0 else labels[row["parent"]] + "/" + name)
    return labels


def values_by_path(path, metric):
    """{call path label: per-location values} of one metric, exclusive, as stored."""
    with h5py.File(path, "r") as f:
        labels = callpath_labels(f)
        data = f["values/" + metric][:] if ("values/" + metric) in f else None
        width = len(f["locations"])
    if data is None:
        return {label: np.zeros(width) for label in labels}
    return {label: data[row] for row, label in enumerate(labels)}


def rank_totals(path, metric):
    return sum(values_by_path(path, metric).values())
