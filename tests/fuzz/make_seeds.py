#!/usr/bin/env python3
"""Seeds for the fuzz targets: make_seeds.py BUILD_DIR OUT_DIR.

OUT/report/    two tiny valid reports (variable- and fixed-length strings) and
               every report in tests/corpus/
OUT/trace/     inputs for fuzz_trace_reader (first byte: 0 = rank 0's events,
               1 = the global definitions) cut from a real 2-rank experiment
OUT/template/  that experiment (ORRERY_FUZZ_TRACE_TEMPLATE)
OUT/metadata/  a run.json of the launcher's shape and a rank marker
Small seeds keep every execution fast: the fuzzer mutates them, it does not
need them large.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "report"))
import numpy as np  # noqa: E402
import cubes  # noqa: E402


def main():
    build, out = sys.argv[1], sys.argv[2]
    for part in ("report", "trace", "metadata"):
        os.makedirs(os.path.join(out, part), exist_ok=True)
    rng = np.random.default_rng(7)
    tree = cubes.random_tree(rng, 4, ["solve", "MPI_Send", "MPI_Recv"])
    ranks = [0, 1]
    metrics = cubes.METRICS[:4]
    for name, fixed in (("vlen.h5", False), ("fixed.h5", True)):
        cubes.write_cube(os.path.join(out, "report", name), tree, ranks,
                         cubes.random_values(rng, tree, ranks), metrics=metrics,
                         fixed_strings=fixed)
    corpus = os.path.join(HERE, "..", "corpus")
    for name in os.listdir(corpus):
        # hdf5-crash-*: inputs HDF5 itself crashes on (contained by the tools'
        # crash guard; a sanitizer stops a fuzzing job on them at once).
        if name.endswith(".h5") and not name.startswith("hdf5-crash-"):
            shutil.copy(os.path.join(corpus, name), os.path.join(out, "report", name))

    template = os.path.join(out, "template")
    shutil.rmtree(template, ignore_errors=True)
    subprocess.run([os.path.join(build, "bin", "analyzer_make_trace"), template, "2"], check=True)
    for tag, path in ((0, os.path.join(template, "traces", "0.evt")),
                      (1, os.path.join(template, "traces.def"))):
        with open(path, "rb") as f:
            data = f.read()
        with open(os.path.join(out, "trace", "seed-%d" % tag), "wb") as f:
            f.write(bytes([tag]) + data)

    run = {"command": ["mpirun", "-np", "2", "./app"], "complete": True, "ranks": 2,
           "measurement": {"program": "/home/user/app", "ranks": 2},
           "hosts": ["node1"], "exit_status": 0}
    with open(os.path.join(out, "metadata", "run.json"), "w") as f:
        json.dump(run, f)
    with open(os.path.join(out, "metadata", "marker.json"), "w") as f:
        json.dump({"reason": "SIGTERM", "rank": 0}, f)


if __name__ == "__main__":
    main()
