#!/usr/bin/env python3
"""Times the cube tools on a large synthetic report and prints wall time and
peak resident memory of each command.

usage: run_bench.py MAKE_CUBE ORRERY CUBE.h5 [CALLPATHS LOCATIONS]"""

import os
import subprocess
import sys
import time


def measure(command):
    """Runs a command; returns (wall seconds, CPU seconds, peak RSS in MiB, exit status)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.stderr.write("%s failed: %s\n" % (" ".join(command), process.stderr.read().decode()))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, process.returncode


def main():
    make_cube, orrery, cube = sys.argv[1:4]
    callpaths = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
    locations = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    if not os.path.exists(cube):
        subprocess.run([make_cube, cube, str(callpaths), str(locations)], check=True)
    raw = callpaths * locations * 40 * 8
    print("cube: %d call paths x %d locations x 40 metrics = %.0f MiB of values, "
          "%.0f MiB on disk" % (callpaths, locations, raw / 2**20,
                                os.path.getsize(cube) / 2**20))
    commands = [
        ["info", cube],
        ["stat", cube, "--metric", "late_sender"],
        ["stat", cube, "--metric", "time", "--exclusive-metric"],
        ["stat", cube, "--metric", "visits", "--inclusive"],
        ["stat", cube, "--metric", "time"],
        ["tree", cube, "--metric", "mpi", "--threshold", "1"],
    ]
    load = os.getloadavg()[0]
    print("load average %.1f on %d cores (wall time suffers when the machine is busy)"
          % (load, os.cpu_count()))
    print("%-58s %8s %8s %9s" % ("command (best of 3)", "wall s", "CPU s", "peak MiB"))
    for args in commands:
        runs = [measure([orrery] + args) for _ in range(3)]
        best = min(runs)  # the warm-cache run
        print("%-58s %8.3f %8.3f %9.1f" % ("orrery " + " ".join(a if a != cube else "CUBE"
                                                               for a in args),
                                           best[0], best[1], best[2]))


if __name__ == "__main__":
    main()
