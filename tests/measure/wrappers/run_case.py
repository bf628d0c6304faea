#!/usr/bin/env python3
"""Runs one MPI test program with liborrery-measure LD_PRELOADed (no launcher)
and checks its experiment with check_trace.py.

usage: run_case.py --lib LIB --mpirun MPIRUN --np N [options] -- PROGRAM ARGS...
  --env K=V          extra environment for the ranks (repeatable)
  --min-flushes N    every rank must have flushed its buffer at least N times
  --compare-plain    also run without measurement: the RESULT lines must be identical
  --refuse-rerun     a second run into the same experiment must refuse and leave it untouched
  --abort R:C        the program calls MPI_Abort on rank R with code C: expect aborted.json
  --unwritable       the experiment directory cannot be created: the run must go on unmeasured
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_trace  # noqa: E402


def run(args, program, env_extra, measured, timeout=60):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [args.mpirun, "-np", str(args.np)]
    names = list(env_extra)
    if measured:
        env["LD_PRELOAD"] = args.lib
        names.append("LD_PRELOAD")
    for name in names:
        cmd += ["-x", name]
    proc = subprocess.run(cmd + program, env=env, capture_output=True, text=True, timeout=timeout)
    return proc


def results(output):
    return sorted(line for line in output.splitlines() if line.startswith("RESULT"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True)
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--np", type=int, default=4)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--min-flushes", type=int, default=0)
    parser.add_argument("--compare-plain", action="store_true")
    parser.add_argument("--refuse-rerun", action="store_true")
    parser.add_argument("--abort")
    parser.add_argument("--unwritable", action="store_true")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = [p for p in args.program if p != "--"]
    with tempfile.TemporaryDirectory(prefix="orrery-measure-test-") as tmp:
        exp = Path(tmp) / "exp"
        expect_dir = Path(tmp) / "expect"
        expect_dir.mkdir()
        env = dict(e.split("=", 1) for e in args.env)
        env["ORRERY_EXPERIMENT_DIR"] = str(exp)
        env["ORRERY_TEST_EXPECT"] = str(expect_dir / "expect")
        if args.unwritable:
            blocker = Path(tmp) / "not-a-directory"
            blocker.write_text("")
            env["ORRERY_EXPERIMENT_DIR"] = str(blocker / "exp")
        proc = run(args, program, env, measured=True)
        if args.unwritable:
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr)
            lines = [l for l in proc.stderr.splitlines() if "not measuring this run" in l]
            if proc.returncode != 0 or len(lines) != 1 or not results(proc.stdout):
                sys.exit("run_case: an unusable experiment directory must give one warning and an unmeasured run")
            print(f"run_case: unmeasured run, warning: {lines[0]}")
            return
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        if args.abort:
            rank, code = (int(x) for x in args.abort.split(":"))
            if proc.returncode == 0:
                sys.exit("run_case: the aborting program exited with status 0")
            marker = json.loads((exp / "aborted.json").read_text())
            if marker["rank"] != rank or marker["error_code"] != code:
                sys.exit(f"run_case: aborted.json says {marker}, expected rank {rank} code {code}")
            run_json = json.loads((exp / "run.json").read_text())
            if run_json.get("complete") is not False:
                sys.exit(f"run_case: run.json of an aborted run must say complete=false: {run_json}")
            if (exp / "measurement.json").exists():
                sys.exit("run_case: an aborted run must not have measurement.json")
            print(f"run_case: aborted run recorded: {marker}")
            return
        if proc.returncode != 0:
            sys.exit(f"run_case: program failed with status {proc.returncode}")
        try:
            check_trace.check_experiment(exp, args.np, expect_dir, args.min_flushes)
        except check_trace.Failure as failure:
            sys.exit(f"run_case: FAILED: {failure}")
        run_json = json.loads((exp / "run.json").read_text())
        if run_json.get("complete") is not True or run_json["measurement"]["ranks"] != args.np:
            sys.exit(f"run_case: run.json incomplete: {run_json}")
        if args.compare_plain:
            plain_env = {k: v for k, v in env.items() if not k.startswith("ORRERY_") or k == "ORRERY_TEST_EXPECT"}
            plain = run(args, program, plain_env, measured=False)
            if plain.returncode != 0:
                sys.exit(f"run_case: the unmeasured run failed with status {plain.returncode}")
            if not results(proc.stdout) or results(proc.stdout) != results(plain.stdout):
                sys.exit("run_case: RESULT lines differ with and without measurement:\n"
                         f"measured: {results(proc.stdout)}\nplain:    {results(plain.stdout)}")
            print(f"run_case: {len(results(proc.stdout))} RESULT lines identical without measurement")
        if args.refuse_rerun:
            before = {p: p.stat().st_mtime_ns for p in exp.rglob("*")}
            again = run(args, program, env, measured=True)
            after = {p: p.stat().st_mtime_ns for p in exp.rglob("*")}
            if again.returncode != 0 or "already holds a trace" not in again.stderr or before != after:
                sys.exit("run_case: a second run into the same experiment did not refuse cleanly:\n" + again.stderr)
            print("run_case: second run into the same experiment refused, experiment untouched")


if __name__ == "__main__":
    main()
