#!/usr/bin/env python3
"""The Python package (python/orrery) reads reports as the terminal tools do.

    python_package_test.py ORRERY SECTION      SECTION: values | extras | hatchet

values: on random cubes (tests/report/cubes.py), values(m) per call path and
location equals `orrery export --format csv`, its row sums equal
`orrery stat --exclusive-metric`'s exclusive column, and values(m,
inclusive=True) row sums equal `orrery stat`'s inclusive column.
extras: metrics, call paths (name paths), locations, efficiency() and
findings() present and absent, errors on files that are not reports.
hatchet: to_hatchet() when LLNL Hatchet is installed (exit 77 = skipped).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "report"))
import cubes  # noqa: E402
import orrery  # noqa: E402

SKIPPED = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def tool(orrery_bin, *args):
    result = subprocess.run([orrery_bin] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=60)
    if result.returncode != 0:
        fail("orrery %s: %s" % (" ".join(args), result.stderr))
    return result.stdout


def random_cube(directory, seed, ranks, fixed_strings=False):
    rng = np.random.default_rng(seed)
    names = ["solve", "exchange", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "io", "setup"]
    tree = cubes.random_tree(rng, 14, names)
    path = os.path.join(directory, "cube%d.h5" % seed)
    cubes.write_cube(path, tree, ranks, cubes.random_values(rng, tree, ranks),
                     fixed_strings=fixed_strings)
    return path


def check_values(orrery_bin, path):
    report = orrery.open(path)
    exported = {}
    for row in csv.DictReader(io.StringIO(tool(orrery_bin, "export", path, "--format", "csv"))):
        key = (row["metric"], int(row["callpath_row"]), int(row["rank"]))
        exported[key] = float(row["value"])
    ranks = list(report.locations["rank"])
    for metric in report.metric_names():
        frame = report.values(metric)
        if list(frame.index) != list(report.callpaths["path"]):
            fail("values index is not the call paths' name paths")
        for c in range(len(frame)):
            for l, rank in enumerate(ranks):
                expected = exported.get((metric, c, rank), 0.0)
                if frame.iat[c, l] != expected:
                    fail("%s %s rank %d: python %r, export %r"
                         % (metric, frame.index[c], rank, frame.iat[c, l], expected))
        for inclusive, flags, column in [(False, ["--exclusive-metric"], "exclusive"),
                                         (True, [], "inclusive")]:
            stat = json.loads(tool(orrery_bin, "stat", path, "-m", metric, "--top", "0",
                                   "--format", "json", *flags))
            sums = report.values(metric, inclusive=inclusive).to_numpy().sum(axis=1)
            for entry in stat["callpaths"]:
                mine = sums[entry["row"]]
                if not np.isclose(mine, entry[column], rtol=1e-12, atol=1e-12):
                    fail("%s %s %s: python %r, stat %r" % (metric, column, entry["callpath"],
                                                           mine, entry[column]))
                if report.callpaths["path"][entry["row"]] != entry["callpath"]:
                    fail("call path %d: python %s, stat %s" % (entry["row"],
                         report.callpaths["path"][entry["row"]], entry["callpath"]))
    print("%s: %d metrics agree with orrery export and orrery stat" % (path,
                                                                        len(report.metrics)))


def section_values(orrery_bin, directory):
    check_values(orrery_bin, random_cube(directory, 1, [0, 1, 2, 3]))
    check_values(orrery_bin, random_cube(directory, 2, [0, 1, 2], fixed_strings=True))


def section_extras(directory):
    path = random_cube(directory, 3, [0, 1])
    with orrery.open(path) as report:
        if list(report.metrics["name"]) != [m[0] for m in cubes.METRICS]:
            fail("metrics: %s" % list(report.metrics["name"]))
        if report.metrics["parent"].tolist()[1] != 0:
            fail("metric parents: %s" % report.metrics["parent"].tolist())
        if report.callpaths["path"][0] != "main" or not all(
                p.startswith("main/") for p in report.callpaths["path"][1:]):
            fail("call path name paths: %s" % list(report.callpaths["path"]))
        if list(report.locations["rank"]) != [0, 1] or report.locations["node"][1] != "node0":
            fail("locations: %s" % report.locations)
        if report.efficiency() is not None:
            fail("efficiency() of a report without /efficiency is not None")
        if not report.findings().empty:
            fail("findings() of a report without /findings is not empty")
    rows = [("parallel_efficiency", 0.5, "pe"), ("load_balance", 0.8, "lb")]
    with h5py.File(path, "a") as f:
        text = h5py.string_dtype("utf-8")
        f["efficiency"] = np.array(rows, dtype=[("name", text), ("value", "<f8"),
                                                ("description", text)])
        f["findings"] = np.array([("late_sender", "main/MPI_Recv", 1.5)],
                                 dtype=[("metric", text), ("callpath", text), ("value", "<f8")])
    report = orrery.open(path)
    efficiency = report.efficiency()
    if list(efficiency["name"]) != ["parallel_efficiency", "load_balance"] or \
            list(efficiency["value"]) != [0.5, 0.8]:
        fail("efficiency(): %s" % efficiency)
    if report.findings()["callpath"].tolist() != ["main/MPI_Recv"]:
        fail("findings(): %s" % report.findings())
    try:
        report.values("no_such_metric")
        fail("values() of an unknown metric did not raise")
    except KeyError as error:
        if "no_such_metric" not in str(error):
            fail("unclear error for an unknown metric: %s" % error)
    not_a_report = os.path.join(directory, "plain.h5")
    with h5py.File(not_a_report, "w") as f:
        f["x"] = [1]
    for bad in [not_a_report, os.path.join(directory, "missing.h5"), __file__]:
        try:
            orrery.open(bad)
            fail("orrery.open(%s) did not raise" % bad)
        except orrery.ReportError as error:
            print("as expected: %s" % error)
    print("metrics, call paths, locations, efficiency, findings and errors as expected")


def section_hatchet(directory):
    try:
        import hatchet  # noqa: F401
    except ImportError:
        print("SKIP: hatchet is not installed")
        sys.exit(SKIPPED)
    report = orrery.open(random_cube(directory, 4, [0, 1]))
    graphframe = report.to_hatchet()
    total = graphframe.dataframe["time"].sum()
    expected = report.values("time").to_numpy().sum()
    if not np.isclose(total, expected):
        fail("hatchet time total %r, report %r" % (total, expected))
    print("to_hatchet(): %d nodes" % len(graphframe.dataframe))


def main():
    orrery_bin, section = sys.argv[1:3]
    with tempfile.TemporaryDirectory(prefix="orrery_python_") as directory:
        if section == "values":
            section_values(orrery_bin, directory)
        elif section == "extras":
            section_extras(directory)
        elif section == "hatchet":
            section_hatchet(directory)
        else:
            fail("unknown section " + section)
    print("PASS")


if __name__ == "__main__":
    main()
