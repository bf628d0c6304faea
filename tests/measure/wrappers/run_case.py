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
  --profile          also run with ORRERY_MODE=profile: every rank's call paths and
                     visit counts must equal those built from the trace run
  --incomplete WHY   every rank ends without MPI_Finalize: expect rank-local traces
                     EXP/incomplete/rank-<r>/ whose events match the program's expectations
"""
import argparse
import collections
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


def trace_call_paths(exp):
    """{rank: {(region, region, ...): visits}} from the trace's Enter events."""
    anchor = str(exp / "traces.otf2")
    comms, groups, _ = check_trace.read_definitions(anchor)
    paths = {}
    for rank, events in check_trace.read_events(anchor, comms, groups).items():
        stack, visits = [], collections.Counter()
        for e in events:
            if e["Event"] == "ENTER":
                stack.append(e["Region"])
                visits[tuple(stack)] += 1
            elif e["Event"] == "LEAVE":
                stack.pop()
        paths[rank] = visits
    return paths


def profile_call_paths(profile):
    names = [r["name"] for r in profile["regions"]]
    nodes = profile["call_paths"]
    visits = collections.Counter()
    for node in nodes:
        path, n = [], node
        while n is not None:
            path.append(names[n["region"]])
            n = nodes[n["parent"]] if n["parent"] is not None else None
        visits[tuple(reversed(path))] += node["visits"]
        if node["exclusive_ns"] > node["inclusive_ns"]:
            raise SystemExit(f"run_case: exclusive > inclusive time in {node}")
    return visits


def check_profile(args, program, env, trace_exp, exp):
    env = dict(env, ORRERY_MODE="profile", ORRERY_EXPERIMENT_DIR=str(exp))
    env.pop("ORRERY_TEST_EXPECT", None)
    proc = run(args, program, env, measured=True)
    if proc.returncode != 0:
        sys.exit(f"run_case: profile run failed ({proc.returncode}): {proc.stderr[-1000:]}")
    if (exp / "traces.otf2").exists() or (exp / "traces").exists():
        sys.exit("run_case: a profile run must not write a trace")
    measurement = json.loads((exp / "measurement.json").read_text())
    if measurement["settings"]["mode"] != "profile" or measurement["profile"] != "profile":
        sys.exit(f"run_case: measurement.json of the profile run: {measurement['settings']}")
    expected = trace_call_paths(trace_exp)
    for rank in range(args.np):
        profile = json.loads((exp / "profile" / f"rank-{rank}.json").read_text())
        got = profile_call_paths(profile)
        # The trace has ORRERY_FLUSH regions only when its buffer overflowed.
        want = {k: v for k, v in expected[rank].items() if "ORRERY_FLUSH" not in k}
        if got != want:
            diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
            sys.exit(f"run_case: rank {rank}: profile call paths differ from the trace's (profile, trace): {diff}")
    print(f"run_case: profile call paths and visits equal the trace's on {args.np} ranks")


def check_incomplete(exp, nranks, expect_dir, reason, program_name):
    if (exp / "measurement.json").exists():
        sys.exit("run_case: a run without MPI_Finalize must not have measurement.json")
    run_json = json.loads((exp / "run.json").read_text())
    if run_json.get("complete") is not False or "incomplete" not in run_json:
        sys.exit(f"run_case: run.json must say complete=false and why: {run_json}")
    events = {}
    regions = {}
    for rank in range(nranks):
        marker_path = exp / "incomplete" / f"rank-{rank}.json"
        if not marker_path.exists():
            sys.exit(f"run_case: rank {rank} left no {marker_path}")
        marker = json.loads(marker_path.read_text())
        if reason not in marker["reason"] or marker["rank"] != rank or marker["ids"] != "local":
            sys.exit(f"run_case: rank {rank}: unexpected marker {marker}")
        anchor = str(exp / marker["trace"])
        try:
            comms, groups, local_regions = check_trace.read_definitions(anchor)
            mine = check_trace.read_events(anchor, comms, groups)
        except check_trace.Failure as failure:
            sys.exit(f"run_case: FAILED reading rank {rank}'s local trace: {failure}")
        if list(mine) != [rank]:
            sys.exit(f"run_case: rank {rank}'s local trace holds locations {list(mine)}")
        stats = marker["statistics"]
        if not stats["trace_written"] or stats["lost_events"] != 0 or stats["events"] != len(mine[rank]):
            sys.exit(f"run_case: rank {rank}: statistics {stats} vs {len(mine[rank])} events in the trace")
        depth = 0
        for event in mine[rank]:
            depth += {"ENTER": 1, "LEAVE": -1}.get(event["Event"], 0)
            if depth < 0:
                sys.exit(f"run_case: rank {rank}: LEAVE without ENTER")
        if depth != 0:
            sys.exit(f"run_case: rank {rank}: {depth} regions left open in the local trace")
        try:
            check_trace.check_program_root(rank, mine[rank], local_regions, program_name)
        except check_trace.Failure as failure:
            sys.exit(f"run_case: FAILED: {failure}")
        events[rank] = mine[rank]
        regions.update(local_regions)
    try:
        checked = check_trace.check_expectations(expect_dir, events, regions, None)
    except check_trace.Failure as failure:
        sys.exit(f"run_case: FAILED: {failure}")
    if checked == 0:
        sys.exit("run_case: the program wrote no expectations")
    total = sum(len(v) for v in events.values())
    print(f"run_case: {nranks} rank-local traces ({total} events, {checked} expectations met) after '{reason}'")


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
    parser.add_argument("--incomplete")
    parser.add_argument("--profile", action="store_true")
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
        if args.incomplete:
            check_incomplete(exp, args.np, expect_dir, args.incomplete, Path(program[0]).name)
            return
        if proc.returncode != 0:
            sys.exit(f"run_case: program failed with status {proc.returncode}")
        try:
            check_trace.check_experiment(exp, args.np, expect_dir, args.min_flushes, Path(program[0]).name)
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
        if args.profile:
            check_profile(args, program, env, exp, Path(tmp) / "profile-exp")
        if args.refuse_rerun:
            before = {p: p.stat().st_mtime_ns for p in exp.rglob("*")}
            again = run(args, program, env, measured=True)
            after = {p: p.stat().st_mtime_ns for p in exp.rglob("*")}
            if again.returncode != 0 or "already holds a trace" not in again.stderr or before != after:
                sys.exit("run_case: a second run into the same experiment did not refuse cleanly:\n" + again.stderr)
            print("run_case: second run into the same experiment refused, experiment untouched")


if __name__ == "__main__":
    main()
