#!/usr/bin/env python3
"""Installs Orrery to a temporary prefix, moves the prefix (relocatable), and
uses it as a user would: builds a CMake project with find_package(Orrery) and
the same source with pkg-config, measures the CMake-built program with the
installed `orrery run`, analyzes it with the installed `orrery-analyze`, and
reads the report with the installed `orrery stat` and Python package.

    install_test.py CMAKE BUILD_DIR SOURCE_DIR

Nothing is run from BUILD_DIR/bin or BUILD_DIR/lib; PATH starts at the
prefix's bin/ and ORRERY_MEASURE_LIBRARY is unset.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RANKS = 2


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, env, quiet=False):
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=240)
    if not quiet or result.returncode != 0:
        print(result.stdout, end="")
    if result.returncode != 0:
        fail("%s exited with %d" % (command[0], result.returncode))
    return result.stdout


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_layout(prefix):
    expected = ["bin/orrery", "bin/orrery-analyze", "bin/orrery-instrument",
                "lib/liborrery-measure.so", "include/orrery/orrery.h",
                "lib/cmake/Orrery/OrreryConfig.cmake", "lib/cmake/Orrery/OrreryTargets.cmake",
                "lib/pkgconfig/orrery.pc", "share/doc/orrery/README.md",
                "share/doc/orrery/install.md"]
    for relative in expected:
        if not os.path.exists(os.path.join(prefix, relative)):
            fail("installed prefix lacks " + relative)
    if not glob.glob(os.path.join(prefix, "lib/python3*/site-packages/orrery/__init__.py")):
        fail("installed prefix lacks the Python package orrery")


def check_no_build_rpath(prefix, build_dir, env):
    """Installed binaries must not point back into the build tree."""
    if shutil.which("readelf", path=env["PATH"]) is None:
        print("readelf not found; run path check skipped")
        return
    for relative in ["bin/orrery", "bin/orrery-analyze", "lib/liborrery-measure.so"]:
        dynamic = run(["readelf", "-d", os.path.join(prefix, relative)], env, quiet=True)
        for line in dynamic.splitlines():
            if ("RPATH" in line or "RUNPATH" in line) and os.path.realpath(build_dir) in line:
                fail("%s keeps a run path into the build tree: %s" % (relative, line.strip()))


def main():
    cmake, build_dir, source_dir = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="orrery_install_")
    try:
        env = dict(os.environ)
        env.pop("ORRERY_MEASURE_LIBRARY", None)
        staged = os.path.join(work, "staged")
        run([cmake, "--install", build_dir, "--prefix", staged], env)
        # Relocatable: the prefix works after it moved.
        prefix = os.path.join(work, "prefix")
        os.rename(staged, prefix)
        check_layout(prefix)
        env["PATH"] = os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", "")
        check_no_build_rpath(prefix, build_dir, env)

        # find_package(Orrery) from a project of its own.
        consumer_build = os.path.join(work, "consumer")
        run([cmake, "-S", os.path.join(source_dir, "tests/install/consumer"), "-B", consumer_build,
             "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_BUILD_TYPE=Release"], env)
        run([cmake, "--build", consumer_build], env)
        program = os.path.join(consumer_build, "consumer")

        # pkg-config: the same source compiles and links with the .pc file.
        env_pc = dict(env, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "orrery"], env_pc).split()
        if not any(flag.startswith("-I" + prefix) for flag in flags):
            fail("pkg-config --cflags does not point into the prefix: %s" % flags)
        run(["mpicc", "-o", os.path.join(work, "consumer_pc"),
             os.path.join(source_dir, "tests/install/consumer/consumer.c")] + flags, env_pc)

        # measure -> analyze -> stat, all from the prefix.
        experiment = os.path.join(work, "exp")
        output = run(["orrery", "run", "-o", experiment, "--", "mpirun", "-np", str(RANKS),
                      program], env)
        library = [line.split(": ", 1)[1] for line in output.splitlines()
                   if line.startswith("measure library: ")]
        if not library or os.path.realpath(library[0]) != os.path.realpath(
                os.path.join(prefix, "lib/liborrery-measure.so")):
            fail("the program did not use the installed library: %s" % library)
        iterations = int([line.split(": ")[1] for line in output.splitlines()
                          if line.startswith("iterations: ")][0])
        run(["mpirun", "-np", str(RANKS), "orrery-analyze", experiment], env)
        report = os.path.join(experiment, "report.h5")
        stat = json.loads(run(["orrery", "stat", report, "--format", "json"], env))
        if not stat:
            fail("orrery stat printed nothing")

        # The user region of the consumer is in the cube, entered `iterations` times per rank.
        with h5py.File(report, "r") as f:
            regions = f["regions"][:]
            names = [text(r["name"]) for r in regions]
            if "consumer_solve" not in names:
                fail("user region consumer_solve missing from the cube: %s" % names)
            region = names.index("consumer_solve")
            if text(regions[region]["paradigm"]) != "user":
                fail("consumer_solve has paradigm %s" % text(regions[region]["paradigm"]))
            rows = [c for c, path in enumerate(f["callpaths"][:]) if path["region"] == region]
            visits = f["values/visits"][rows, :].sum(axis=0)
            if not np.all(visits == iterations):
                fail("consumer_solve visits per rank %s, expected %d" % (visits, iterations))

        # The installed Python package reads the same report.
        python_dir = glob.glob(os.path.join(prefix, "lib/python3*/site-packages"))[0]
        env_py = dict(env, PYTHONPATH=python_dir)
        code = ("import sys, orrery\n"
                "v = orrery.open(sys.argv[1]).values('visits')\n"
                "print(int(v[[p.endswith('/consumer_solve') for p in v.index]].to_numpy().sum()))\n")
        visits_py = run([sys.executable, "-c", code, report], env_py).strip().splitlines()[-1]
        if int(visits_py) != iterations * RANKS:
            fail("Python package read %s visits, expected %d" % (visits_py, iterations * RANKS))
        print("PASS: installed prefix measures, analyzes and reads reports (%d visits)"
              % (iterations * RANKS))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
