#!/usr/bin/env python3
"""A full disk while measuring, analyzing and writing reports (docs/robustness.md).

On a tiny tmpfs: `orrery run` keeps the application's exit status, says in one
line that the experiment is incomplete, and leaves no temporary files;
`orrery-analyze` and `orrery diff` exit 1 naming the output and the full disk,
and leave nothing under the output's name. An output in a missing directory is
refused the same way. Needs root to mount tmpfs; exits 77 (skipped) otherwise.
"""
import os
import subprocess
import sys
import tempfile

BUILD = os.environ["ORRERY_BUILD_DIR"]
BIN = os.path.join(BUILD, "bin")
ORRERY = os.path.join(BIN, "orrery")
ANALYZE = os.path.join(BIN, "orrery-analyze")
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


def mpirun(np, *args):
    return ["mpirun", "--oversubscribe", "-np", str(np), *args]


def leftovers(directory):
    found = []
    for root, _, files in os.walk(directory):
        found += [os.path.join(root, f) for f in files if ".tmp" in f or ".partial" in f]
    return found


def error_lines(stderr, prefix):
    return [line for line in stderr.splitlines() if line.startswith(prefix)]


def mount_tmpfs(directory, size):
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", directory],
                          capture_output=True).returncode == 0


def measure_on_full_disk(work):
    disk = os.path.join(work, "measure-disk")
    os.mkdir(disk)
    if not mount_tmpfs(disk, "16k"):
        return False
    try:
        observed = os.path.join(work, "observed")
        os.mkdir(observed)
        experiment = os.path.join(disk, "exp")
        result = run([ORRERY, "run", "-o", experiment, "--",
                      *mpirun(2, os.path.join(BIN, "e2e_late_sender"), observed)])
        check(result.returncode == 0,
              "orrery run keeps the application's exit status 0, got %d: %s"
              % (result.returncode, result.stderr[-400:]))
        lines = error_lines(result.stderr, "orrery run:")
        check(lines and "incomplete" in lines[-1],
              "orrery run says the experiment is incomplete: %r" % lines)
        check(not any("[OTF2]" in line for line in result.stderr.splitlines()),
              "OTF2's own error lines are not printed")
        check(not leftovers(disk), "no temporary files left: %r" % leftovers(disk))
        run_json = os.path.join(experiment, "run.json")
        if os.path.exists(run_json):
            with open(run_json) as f:
                check('"complete": false' in f.read(), "run.json does not claim a complete run")
        analysis = run(mpirun(2, ANALYZE, "-q", experiment))
        check(analysis.returncode == 1, "analyzing the incomplete experiment exits 1, got %d"
              % analysis.returncode)
        check(error_lines(analysis.stderr, "orrery-analyze: error"),
              "the analysis says why: %r" % analysis.stderr[-400:])
    finally:
        subprocess.run(["umount", disk])
    return True


def write_on_full_disk(work):
    good = os.path.join(work, "good")
    made = run([os.path.join(BIN, "analyzer_make_trace"), good, "2"])
    check(made.returncode == 0, "analyzer_make_trace: %s" % made.stderr)
    analysis = run(mpirun(2, ANALYZE, "-q", good))
    check(analysis.returncode == 0, "the good experiment analyzes: %s" % analysis.stderr[-400:])
    report = os.path.join(good, "report.h5")
    disk = os.path.join(work, "report-disk")
    os.mkdir(disk)
    if not mount_tmpfs(disk, "8k"):
        return False
    try:
        target = os.path.join(disk, "r.h5")
        cases = [("orrery-analyze", mpirun(2, ANALYZE, "-q", good, "-o", target)),
                 ("orrery diff", [ORRERY, "diff", report, report, "-o", target]),
                 ("orrery mean", [ORRERY, "mean", report, report, "-o", target])]
        for name, args in cases:
            result = run(args)
            check(result.returncode == 1, "%s on a full disk exits 1, got %d" % (name, result.returncode))
            lines = error_lines(result.stderr, name)
            check(lines and target in lines[0] and "no space left" in lines[0],
                  "%s names the output and the full disk: %r" % (name, result.stderr[-400:]))
            check(os.listdir(disk) == [], "%s leaves nothing on the disk: %r" % (name, os.listdir(disk)))
    finally:
        subprocess.run(["umount", disk])
    missing = os.path.join(work, "no", "such", "dir", "r.h5")
    for name, args in [("orrery-analyze", mpirun(2, ANALYZE, "-q", good, "-o", missing)),
                       ("orrery diff", [ORRERY, "diff", report, report, "-o", missing])]:
        result = run(args)
        check(result.returncode == 1, "%s into a missing directory exits 1, got %d"
              % (name, result.returncode))
        check(error_lines(result.stderr, name), "%s says why: %r" % (name, result.stderr[-300:]))
    return True


def main():
    if os.geteuid() != 0:
        print("skipped: mounting a small tmpfs needs root")
        return 77
    with tempfile.TemporaryDirectory(prefix="orrery-disk-full-") as work:
        if not measure_on_full_disk(work) or not write_on_full_disk(work):
            print("skipped: cannot mount tmpfs here")
            return 77
    for failure in FAILURES:
        print("FAIL:", failure)
    if FAILURES:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
