#!/usr/bin/env python3
"""liborrery-measure preloaded into an instrumented program that never calls
MPI_Init: same output, exit status 0, no experiment directory, nothing left in
TMPDIR or the working directory, and memory growth far below the bytes the
regions it entered would take (the buffer spills, then is discarded at exit)."""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

RECORD_BYTES = 13  # one Enter or Leave record in the event buffer


def run(program, calls, env, cwd):
    proc = subprocess.Popen([program, str(calls)], env=env, cwd=cwd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out, usage.ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True)
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = [p for p in args.program if p != "--"][0]
    small, big = 1000, 2_000_000
    with tempfile.TemporaryDirectory(prefix="orrery-measure-nompi-") as tmp:
        tmp = Path(tmp)
        cwd, spill, exp = tmp / "cwd", tmp / "tmpdir", tmp / "exp"
        cwd.mkdir()
        spill.mkdir()
        env = dict(os.environ, LD_PRELOAD=args.lib, TMPDIR=str(spill), ORRERY_EXPERIMENT_DIR=str(exp),
                   ORRERY_BUFFER_SIZE="64K")
        plain_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        results = {}
        for calls in (small, big):
            status, out, rss = run(program, calls, env, cwd)
            _, plain_out, _ = run(program, calls, plain_env, cwd)
            if status != 0 or out != plain_out or not out.startswith("RESULT"):
                sys.exit(f"no_mpi_case: preloaded run ({status}) printed {out!r}, plain run {plain_out!r}")
            results[calls] = rss
        left = [str(p) for d in (cwd, spill) for p in d.rglob("*")]
        if exp.exists() or left:
            sys.exit(f"no_mpi_case: a process without MPI_Init left files: {left}, experiment {exp.exists()}")
        grown = results[big] - results[small]
        recorded = (big - small) * 2 * RECORD_BYTES
        if grown > recorded // 4:
            sys.exit(f"no_mpi_case: max RSS grew by {grown} bytes for {recorded} bytes of events: not bounded")
        print(f"no_mpi_case: inert; max RSS {results[small]} -> {results[big]} bytes "
              f"while entering regions worth {recorded} bytes of events; no files")


if __name__ == "__main__":
    main()
