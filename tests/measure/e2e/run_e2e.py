#!/usr/bin/env python3
"""End-to-end tests of `orrery run`, the measurement library and
`orrery-instrument` from the built tree. One test per invocation:

    run_e2e.py TEST --probe PATH --static PATH --mpirun PATH

The examples count their own MPI calls (--count-calls); the trace, read with
otf2-print, must hold exactly those calls per rank.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from otf2_events import read_trace, region_definitions  # noqa: E402

BUILD = Path(os.environ.get("ORRERY_BUILD_DIR", "build")).resolve()
SOURCE = Path(os.environ.get("ORRERY_SOURCE_DIR", Path(__file__).resolve().parents[3]))
ORRERY = BUILD / "bin" / "orrery"
INSTRUMENT = BUILD / "bin" / "orrery-instrument"
EXAMPLES = BUILD / "examples"
TIMEOUT = 60
ARGS = None


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, cwd, timeout=TIMEOUT, env=None):
    """Runs a command, never longer than `timeout` (a hang is a failure)."""
    command = [str(word) for word in command]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout} s: {' '.join(command)}")
    print(f"$ {' '.join(command)}  -> {done.returncode}")
    for stream in (done.stdout, done.stderr):
        if stream.strip():
            print("  " + stream.strip().replace("\n", "\n  ")[:3000])
    return done


def mpirun(ranks, *command):
    return [ARGS.mpirun, "-np", str(ranks), *command]


def orrery_run(exp, launch, cwd, options=(), timeout=TIMEOUT):
    return run([ORRERY, "run", "-o", exp, *options, "--", *launch], cwd, timeout)


def load_json(path):
    with open(path) as handle:
        return json.load(handle)


def query_functions():
    """MPI functions the library counts instead of tracing (category `query`)."""
    table = SOURCE / "measure" / "lib" / "mpi_functions.txt"
    queries = set()
    for line in table.read_text().splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].startswith("MPI_") and words[1] == "query":
            queries.add(words[0])
    return queries


def program_counts(prefix, ranks):
    counts = {}
    for rank in range(ranks):
        path = Path(f"{prefix}.{rank}.json")
        check(path.exists(), f"the example wrote no call counts {path}")
        counts[rank] = load_json(path)
    return counts


def check_trace_matches_calls(anchor, counts, trace_queries):
    """Per rank and per MPI function: Enter events == calls the program made
    (0 for counted-only queries unless traced), Leave == Enter, and the
    message and collective events match the program's own counts."""
    trace = read_trace(anchor)
    check(not [w for w in trace.warnings if re.search(r"error|warning", w, re.I)],
          f"otf2-print reported problems: {trace.warnings[:5]}")
    check(trace.locations() == sorted(counts),
          f"trace locations {trace.locations()} != ranks {sorted(counts)}")
    queries = query_functions()
    for rank, program in counts.items():
        enters, leaves, kinds = trace.enters[rank], trace.leaves[rank], trace.kinds[rank]
        for function, calls in program["calls"].items():
            expected = 0 if (function in queries and not trace_queries) else calls
            check(enters[function] == expected,
                  f"rank {rank}: {function} entered {enters[function]} times in the trace, "
                  f"expected {expected} (the program called it {calls} times)")
        for region, number in enters.items():
            check(leaves[region] == number,
                  f"rank {rank}: {region} entered {number} times but left {leaves[region]}")
            if region.startswith("MPI_"):
                check(region in program["calls"], f"rank {rank}: {region} in the trace, never called")
        sends = kinds["MPI_SEND"] + kinds["MPI_ISEND"]
        receives = kinds["MPI_RECV"] + kinds["MPI_IRECV"]
        check(sends == program["messages_sent"],
              f"rank {rank}: {sends} send events, the program sent {program['messages_sent']}")
        check(receives == program["messages_received"],
              f"rank {rank}: {receives} receive events, program received "
              f"{program['messages_received']}")
        check(kinds["MPI_ISEND_COMPLETE"] == kinds["MPI_ISEND"],
              f"rank {rank}: {kinds['MPI_ISEND']} MpiIsend but {kinds['MPI_ISEND_COMPLETE']} completions")
        check(kinds["MPI_IRECV_REQUEST"] == kinds["MPI_IRECV"],
              f"rank {rank}: {kinds['MPI_IRECV_REQUEST']} MpiIrecvRequest but {kinds['MPI_IRECV']} MpiIrecv")
        for kind in ("MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END"):
            check(kinds[kind] == program["collectives"],
                  f"rank {rank}: {kinds[kind]} {kind}, the program made {program['collectives']} "
                  "collective calls")
    return trace


def check_statistics(exp, trace, counts, trace_queries):
    """measurement.json agrees with the trace: events per rank, no lost
    events, and the counted-only calls equal the program's own counts."""
    per_rank = {entry["rank"]: entry for entry in
                load_json(exp / "measurement.json")["statistics"]["per_rank"]}
    queries = query_functions()
    for rank, program in counts.items():
        stats = per_rank[rank]
        check(stats["lost_events"] == 0, f"rank {rank}: {stats['lost_events']} lost events")
        check(stats["events"] == trace.events[rank],
              f"rank {rank}: measurement.json says {stats['events']} events, the trace has "
              f"{trace.events[rank]}")
        expected = {} if trace_queries else {
            function: calls for function, calls in program["calls"].items() if function in queries}
        check(stats["counted_calls"] == expected,
              f"rank {rank}: counted calls {stats['counted_calls']}, expected {expected}")


def check_run_record(exp, launch, complete, exit_status):
    record = load_json(exp / "run.json")
    check(record.get("command") == [str(word) for word in launch],
          f"run.json command {record.get('command')} != {launch}")
    check(record.get("complete") is complete, f"run.json complete = {record.get('complete')}")
    check(record.get("exit_status") == exit_status,
          f"run.json exit_status = {record.get('exit_status')}, expected {exit_status}")
    for key in ("start", "end", "hosts", "settings"):
        check(record.get(key), f"run.json lacks {key}")
    return record


def run_example(tmp, example, ranks, example_args, options=()):
    exp, prefix = tmp / "EXP", tmp / "counts"
    launch = mpirun(ranks, EXAMPLES / example, *example_args, "--count-calls", prefix, "--quiet")
    done = orrery_run(exp, launch, tmp, options)
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    check((exp / "traces.otf2").exists(), "no traces.otf2 in the experiment")
    record = check_run_record(exp, launch, True, 0)
    check(isinstance(record.get("measurement"), dict), "run.json does not embed measurement.json")
    return exp, program_counts(prefix, ranks)


# --- the tests ------------------------------------------------------------


def test_stencil2d(tmp):
    # --size 64: halo rows of 32 doubles (256 B), sends that OpenMPI completes at once.
    exp, counts = run_example(tmp, "stencil2d", 4, ["--size", "64", "--iterations", "30"])
    trace = check_trace_matches_calls(exp / "traces.otf2", counts, trace_queries=False)
    check_statistics(exp, trace, counts, trace_queries=False)


def test_master_worker(tmp):
    exp, counts = run_example(tmp, "master_worker", 4, ["--tasks", "40", "--work", "2000"],
                              ["--trace-queries"])
    trace = check_trace_matches_calls(exp / "traces.otf2", counts, trace_queries=True)
    check_statistics(exp, trace, counts, trace_queries=True)
    embedded = load_json(exp / "run.json")["measurement"]
    check(embedded == load_json(exp / "measurement.json"), "run.json embeds another measurement")


def test_instrumented_example(tmp):
    """stencil2d-instrumented: compiler regions with file and line; the slow
    rank relaxes 1 + imbalance times per iteration, the others once."""
    iterations, imbalance = 12, 2
    exp = tmp / "EXP"
    launch = mpirun(4, EXAMPLES / "stencil2d-instrumented", "--size", "128", "--iterations",
                    iterations, "--imbalance", imbalance, "--slow-rank", 2, "--quiet",
                    "--count-calls", tmp / "counts")
    done = orrery_run(exp, launch, tmp)
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    trace = check_trace_matches_calls(exp / "traces.otf2", program_counts(tmp / "counts", 4),
                                      trace_queries=False)
    for rank in range(4):
        relax = trace.enters[rank]["relax"]
        expected = iterations * (1 + (imbalance if rank == 2 else 0))
        check(relax == expected, f"rank {rank}: relax entered {relax} times, expected {expected}")
        check(trace.enters[rank]["exchange_halos"] == iterations,
              f"rank {rank}: exchange_halos entered {trace.enters[rank]['exchange_halos']} times")
        # main is entered before MPI_Init, when the measurement is not yet active.
    check_source_location(exp, "relax", SOURCE / "examples" / "stencil2d.c")


def test_options(tmp):
    """--buffer and --filter reach the library: a 4 KiB buffer forces flushes
    that lose nothing, and the filtered function leaves no events."""
    iterations = 20
    (tmp / "regions.filter").write_text("# keep the halo exchange, drop the sweeps\nEXCLUDE relax\n")
    exp, prefix = tmp / "EXP", tmp / "counts"
    launch = mpirun(4, EXAMPLES / "stencil2d-instrumented", "--size", "128", "--iterations",
                    iterations, "--count-calls", prefix, "--quiet")
    done = orrery_run(exp, launch, tmp, ["--buffer", "4K", "--filter", "regions.filter"])
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    record = check_run_record(exp, launch, True, 0)
    check(record["settings"]["buffer_bytes"] == 4096, f"settings {record['settings']}")
    check(record["settings"]["filter"] == str(tmp / "regions.filter"), f"settings {record['settings']}")
    settings = record["measurement"]["settings"]
    check(settings["buffer_size"] == 4096, f"the library used buffer {settings['buffer_size']}")
    check(settings["filter"] == str(tmp / "regions.filter"), f"the library used filter {settings['filter']}")
    counts = program_counts(prefix, 4)
    trace = check_trace_matches_calls(exp / "traces.otf2", counts, trace_queries=False)
    for entry in record["measurement"]["statistics"]["per_rank"]:
        rank = entry["rank"]
        check(entry["flushes"] > 0, f"rank {rank}: no flush with a 4 KiB buffer")
        check(entry["lost_events"] == 0, f"rank {rank}: {entry['lost_events']} events lost")
        check(trace.enters[rank]["relax"] == 0, f"rank {rank}: filtered relax is in the trace")
        check(trace.enters[rank]["exchange_halos"] == iterations,
              f"rank {rank}: exchange_halos entered {trace.enters[rank]['exchange_halos']} times")


def test_mode_and_verbose(tmp):
    """--mode, --sampling-interval and --verbose reach the library."""
    exp = tmp / "EXP"
    launch = mpirun(2, EXAMPLES / "master_worker", "--tasks", "6", "--work", "100", "--quiet")
    done = orrery_run(exp, launch, tmp, ["--mode", "profile", "--sampling-interval", "0", "-v"])
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    record = check_run_record(exp, launch, True, 0)
    settings = record["measurement"]["settings"]
    check(settings["mode"] == "profile", f"the library ran in mode {settings['mode']}")
    check(settings["sampling_interval_ms"] == 0, f"sampling interval {settings['sampling_interval_ms']}")
    library_lines = [line for line in (done.stdout + done.stderr).splitlines()
                     if line.startswith("orrery:")]
    check(library_lines, "--verbose: the library printed nothing")


_METRIC_VALUE = re.compile(r'\("([a-z_]+)" <\d+>; UINT64; (\d+)\)')
RESOURCE_METRICS = ["resident_set_size", "cpu_time", "minor_page_faults", "major_page_faults",
                    "voluntary_context_switches", "involuntary_context_switches"]


def metric_events(anchor):
    """{location: [(time, {metric: value}), ...]} of the METRIC events, and
    {location: (first, last)} event times, from otf2-print."""
    done = run(["otf2-print", anchor], anchor.parent)
    check(done.returncode == 0, "otf2-print failed")
    samples, spans = {}, {}
    for line in done.stdout.splitlines():
        match = re.match(r"^([A-Z][A-Z0-9_]*)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if not match:
            continue
        location, time_ = int(match.group(2)), int(match.group(3))
        first, last = spans.get(location, (time_, time_))
        spans[location] = (min(first, time_), max(last, time_))
        if match.group(1) == "METRIC":
            values = {name: int(value) for name, value in _METRIC_VALUE.findall(match.group(4))}
            samples.setdefault(location, []).append((time_, values))
    return samples, spans


def analyze(exp, tmp):
    done = run(mpirun(4, BUILD / "bin" / "orrery-analyze", exp), tmp)
    check(done.returncode == 0 and (exp / "report.h5").exists(), f"orrery-analyze {exp} failed")
    tables = {}
    for metric in ("visits", "bytes_sent", "sends", "receives", "collectives"):
        stat = run([ORRERY, "stat", "-m", metric, "-k", "0", "--format", "csv", exp / "report.h5"], tmp)
        check(stat.returncode == 0, f"orrery stat -m {metric} failed")
        tables[metric] = stat.stdout
    return tables


def test_sampling(tmp):
    """--sampling-interval 1: METRIC events on every rank, in time order within
    the run, RSS > 0, the counters never decrease, at least 1 ms apart (the
    last one at MPI_Finalize excepted), as many as measurement.json says;
    the analysis is the same as without sampling. --sampling-interval 0: none."""
    interval_ms, ranks = 1, 4
    launch = mpirun(ranks, EXAMPLES / "stencil2d", "--size", "256", "--iterations", "150", "--quiet")
    sampled, plain = tmp / "SAMPLED", tmp / "PLAIN"
    done = orrery_run(sampled, launch, tmp, ["--sampling-interval", str(interval_ms)])
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    measurement = load_json(sampled / "measurement.json")
    check(measurement["settings"]["sampling_interval_ms"] == interval_ms, f"settings {measurement['settings']}")
    per_rank = {entry["rank"]: entry for entry in measurement["statistics"]["per_rank"]}
    samples, spans = metric_events(sampled / "traces.otf2")
    check(sorted(samples) == list(range(ranks)), f"METRIC events on locations {sorted(samples)}")
    total = 0
    for rank, events in samples.items():
        check(len(events) == per_rank[rank]["samples"],
              f"rank {rank}: {len(events)} METRIC events, measurement.json says {per_rank[rank]['samples']}")
        total += len(events)
        first, last = spans[rank]
        span_ms = (last - first) / 1e6
        # At least the ones after MPI_Init and before the trace is written; at
        # most one per interval of the run plus those two.
        check(2 <= len(events) <= span_ms / interval_ms + 2,
              f"rank {rank}: {len(events)} samples in {span_ms:.1f} ms at {interval_ms} ms")
        previous = None
        for index, (time_, values) in enumerate(events):
            check(sorted(values) == sorted(RESOURCE_METRICS), f"rank {rank}: metric values {values}")
            check(first <= time_ <= last, f"rank {rank}: sample at {time_} outside [{first}, {last}]")
            check(values["resident_set_size"] > 0, f"rank {rank}: RSS {values['resident_set_size']}")
            if previous is not None:
                before_time, before = previous
                check(time_ >= before_time, f"rank {rank}: samples out of time order")
                if index < len(events) - 1:
                    check(time_ - before_time >= interval_ms * 1e6 * 0.99,
                          f"rank {rank}: samples {(time_ - before_time) / 1e6:.3f} ms apart")
                for name in RESOURCE_METRICS[1:]:
                    check(values[name] >= before[name],
                          f"rank {rank}: {name} decreased from {before[name]} to {values[name]}")
            previous = (time_, values)
        check(events[-1][1]["cpu_time"] > events[0][1]["cpu_time"], f"rank {rank}: no CPU time used")
        check(events[-1][1]["minor_page_faults"] > 0, f"rank {rank}: no minor page faults")
    check(measurement["statistics"]["total"]["samples"] == total,
          f"total samples {measurement['statistics']['total']['samples']} != {total}")
    definitions = run(["otf2-print", "-G", sampled / "traces.otf2"], tmp).stdout
    check(definitions.count("METRIC_MEMBER ") == len(RESOURCE_METRICS) and "METRIC_CLASS " in definitions,
          "the global definitions lack the metric members or class")
    check("ABSOLUTE_POINT" in definitions and "ACCUMULATED_START" in definitions, "metric modes")

    done = orrery_run(plain, launch, tmp, ["--sampling-interval", "0"])
    check(done.returncode == 0, f"orrery run exited with {done.returncode}")
    none, _ = metric_events(plain / "traces.otf2")
    check(not none, f"METRIC events with sampling off: {sorted(none)}")
    check(load_json(plain / "measurement.json")["statistics"]["total"]["samples"] == 0, "samples with sampling off")
    check("METRIC_MEMBER" not in run(["otf2-print", "-G", plain / "traces.otf2"], tmp).stdout,
          "metric definitions with sampling off")
    # The analyzer ignores the samples: counts per call path are the same.
    with_samples, without = analyze(sampled, tmp), analyze(plain, tmp)
    for metric, table in with_samples.items():
        check(table == without[metric], f"{metric} differs with sampling:\n{table}\n{without[metric]}")


def definition_line(source, function):
    for number, line in enumerate(source.read_text().splitlines(), 1):
        if re.search(rf"\b{function}\([^;]*\)\s*\{{", line):
            return number
    raise Failure(f"{function} not defined in {source}")


def check_source_location(exp, function, source):
    regions = region_definitions(exp / "traces.otf2")
    check(function in regions, f"no region '{function}' in the definitions")
    region = regions[function]
    check(region["file"].endswith(source.name), f"{function}: file '{region['file']}'")
    line = definition_line(source, function)
    check(abs(region["line"] - line) <= 1, f"{function}: line {region['line']}, defined at {line}")


def test_instrument(tmp):
    """orrery-instrument mpicc builds a program whose functions are traced;
    compile-only gets no link flags; the compiler's status passes through."""
    source = Path(__file__).resolve().parent / "instrumented_app.c"
    app = tmp / "app"
    done = run([INSTRUMENT, "mpicc", "-O1", source, "-o", app], tmp)
    check(done.returncode == 0 and app.exists(), "orrery-instrument mpicc failed")
    exp = tmp / "EXP"
    done = orrery_run(exp, mpirun(2, app, "7"), tmp)
    check(done.returncode == 0, f"orrery run of the instrumented program exited {done.returncode}")
    trace = read_trace(exp / "traces.otf2")
    for rank in range(2):
        check(trace.enters[rank]["work_item"] == 7, f"rank {rank}: work_item entered "
              f"{trace.enters[rank]['work_item']} times, expected 7")
        check(trace.enters[rank]["phase"] == 1, f"rank {rank}: phase entered {trace.enters[rank]['phase']}")
    check_source_location(exp, "work_item", source)

    fake = tmp / "fakecc"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/fakecc.args"\nexit 3\n')
    fake.chmod(0o755)
    for arguments, links in ((["-c", "a.c", "-o", "a.o"], False), (["-E", "a.c"], False),
                             (["a.o", "-o", "a"], True)):
        done = run([INSTRUMENT, fake, *arguments], tmp)
        check(done.returncode == 3, f"compiler status 3 not passed through: {done.returncode}")
        seen = (tmp / "fakecc.args").read_text().split("\n")
        check("-finstrument-functions" in seen, f"no -finstrument-functions in {seen}")
        check(("-lorrery-measure" in seen) == links, f"link flags wrong for {arguments}: {seen}")
        if links:
            check(any(word.startswith("-Wl,-rpath,") and word.endswith("/lib") for word in seen),
                  f"no rpath in {seen}")
    check(run([INSTRUMENT], tmp).returncode == 2, "orrery-instrument without a compiler: not 2")


def test_refuse_existing(tmp):
    exp = tmp / "EXP"
    exp.mkdir()
    (exp / "sentinel").write_text("keep me")
    done = orrery_run(exp, mpirun(2, ARGS.probe), tmp)
    check(done.returncode == 1, f"exit {done.returncode} for an existing experiment, expected 1")
    check("already exists" in done.stderr, "no 'already exists' message")
    check(sorted(p.name for p in exp.iterdir()) == ["sentinel"], "the existing experiment was touched")
    first = tmp / "EXP2"
    check(orrery_run(first, mpirun(2, ARGS.probe), tmp).returncode == 0, "first run failed")
    before = (first / "run.json").read_text()
    again = orrery_run(first, mpirun(2, ARGS.probe), tmp)
    check(again.returncode == 1 and "already exists" in again.stderr, "second run was not refused")
    check((first / "run.json").read_text() == before, "the refused run rewrote run.json")


def test_bad_usage(tmp):
    cases = [
        (["run", "--no-such-option", "--", "true"], 2, "unknown option"),
        (["run", "-o", tmp / "x"], 2, "no launch command"),
        (["run", "-o", tmp / "y", "--"], 2, "no launch command"),
        (["run", "mpirun", "./app"], 2, "must follow '--'"),
        (["run", "--mode", "everything", "--", "true"], 2, "mode"),
        (["run", "--buffer", "lots", "--", "true"], 2, "not a size"),
        (["run", "--sampling-interval", "-1", "--", "true"], 2, "not a whole number"),
        (["run", "--sampling-interval", "99999999999999999999999", "--", "true"], 2,
         "more than a day"),
        (["run", "-o", "/etc/hostname/EXP", "--", "true"], 1, "cannot create experiment directory"),
        (["run", "-o", tmp / "z", "--filter", tmp / "missing.filter", "--", "true"], 1,
         "filter file"),
        (["run", "-o", tmp / "w", "--", tmp / "no-such-program"], 127, "cannot run"),
    ]
    for arguments, status, message in cases:
        done = run([ORRERY, *arguments], tmp)
        check(done.returncode == status, f"{arguments}: exit {done.returncode}, expected {status}")
        check(message in done.stderr, f"{arguments}: no '{message}' in: {done.stderr.strip()}")
        check("Traceback" not in done.stderr and "terminate called" not in done.stderr,
              f"{arguments}: crashed")
    check(not (tmp / "w").exists(), "a launch that could not start left an experiment behind")
    env = dict(os.environ, ORRERY_MEASURE_LIBRARY=str(tmp / "nowhere.so"))
    done = run([ORRERY, "run", "-o", tmp / "v", "--", "true"], tmp, env=env)
    check(done.returncode == 1 and "measurement library not found" in done.stderr,
          "a missing library is not reported")
    helped = run([ORRERY, "run", "--help"], tmp)
    check(helped.returncode == 0, "--help failed")
    for variable in ("ORRERY_EXPERIMENT_DIR", "ORRERY_MODE", "ORRERY_BUFFER_SIZE", "ORRERY_FILTER",
                     "ORRERY_SAMPLING_INTERVAL", "ORRERY_TRACE_QUERIES", "ORRERY_VERBOSE"):
        check(variable in helped.stdout, f"--help does not mention {variable}")


def test_not_mpi(tmp):
    for name, launch, hint in (("EXP1", mpirun(2, "hostname"), "not linked with MPI"),
                               ("EXP2", ["true"], "not linked with MPI"),
                               ("EXP3", [ARGS.static], "statically linked")):
        done = orrery_run(tmp / name, launch, tmp)
        check(done.returncode != 0, f"{launch}: exit 0 although nothing was traced")
        check("produced no trace" in done.stderr and hint in done.stderr,
              f"{launch}: no clear warning: {done.stderr.strip()}")
        check_run_record(tmp / name, launch, False, 0)
    # The launcher appends to an LD_PRELOAD the user already has.
    env = dict(os.environ, LD_PRELOAD="libm.so.6")
    done = run([ORRERY, "run", "-o", tmp / "EXP4", "--", "sh", "-c", 'echo "$LD_PRELOAD"'], tmp,
               env=env)
    preload = done.stdout.strip().split(":")
    check(preload[0] == "libm.so.6" and preload[-1].endswith("/liborrery-measure.so"),
          f"LD_PRELOAD in the application: {done.stdout.strip()}")


def test_exit_status(tmp):
    launch = mpirun(2, ARGS.probe, "--exit", "7")
    done = orrery_run(tmp / "EXP", launch, tmp)
    check(done.returncode == 7, f"exit status {done.returncode}, the application returned 7")
    record = check_run_record(tmp / "EXP", launch, False, 7)
    check(isinstance(record.get("measurement"), dict), "the run reached MPI_Finalize: no measurement")
    done = run([ORRERY, "run", "--", *mpirun(2, ARGS.probe)], tmp)
    check(done.returncode == 0, f"default experiment run exited {done.returncode}")
    default = tmp / f"orrery_{Path(ARGS.probe).name}_2"
    check((default / "run.json").exists(), f"no default experiment {default.name}")


def test_abort(tmp):
    launch = mpirun(4, ARGS.probe, "--abort", "5")
    started = time.monotonic()
    done = orrery_run(tmp / "EXP", launch, tmp, timeout=45)
    print(f"aborted run took {time.monotonic() - started:.1f} s")
    check(done.returncode != 0, "MPI_Abort run exited with 0")
    record = check_run_record(tmp / "EXP", launch, False, done.returncode)
    aborted = record.get("aborted")
    check(isinstance(aborted, dict), f"run.json 'aborted' is {aborted!r}")
    check(aborted.get("rank") == 1, f"aborted rank {aborted.get('rank')}, expected 1")
    check("MPI_Abort" in done.stderr, "no message about MPI_Abort")


def test_exit_early(tmp):
    """Ranks exiting without MPI_Finalize: status passed through, run.json
    incomplete and listing each rank's rank-local trace."""
    launch = mpirun(2, ARGS.probe, "--exit-early", "4")
    done = orrery_run(tmp / "EXP", launch, tmp)
    check(done.returncode == 4, f"exit status {done.returncode}, the ranks exited with 4")
    record = check_run_record(tmp / "EXP", launch, False, 4)
    incomplete = record.get("incomplete")
    check(isinstance(incomplete, list) and [entry.get("rank") for entry in incomplete] == [0, 1],
          f"run.json 'incomplete' is {incomplete!r}")
    check("before MPI_Finalize" in done.stderr and "incomplete/" in done.stderr,
          "no message about the unfinalized ranks")


def test_signal(tmp):
    """SIGTERM and SIGINT sent to `orrery run` reach the application; the
    record is still written."""
    for number in (signal.SIGTERM, signal.SIGINT):
        exp = tmp / f"EXP{int(number)}"
        command = [str(w) for w in (ORRERY, "run", "-o", exp, "--",
                                    *mpirun(2, ARGS.probe, "--sleep", "60"))]
        process = subprocess.Popen(command, cwd=tmp, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        if process.poll() is not None:
            raise Failure(f"the run ended before the signal: {process.communicate()}")
        process.send_signal(number)
        try:
            _, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise Failure(f"orrery run did not end after {number.name}")
        print(stderr)
        check(process.returncode != 0, f"a run stopped by {number.name} exited with 0")
        record = load_json(exp / "run.json")
        check(record.get("end") and record.get("complete") is False,
              f"run.json not completed after {number.name}: {record}")
        check(record.get("interrupted_by_signal") == number,
              f"run.json does not record {number.name}")
        check("interrupted by signal" in stderr, "no message about the signal")


def test_demo(tmp):
    """scripts/demo.sh steps 3-5 on the built tree: measure, analyze, stat."""
    env = dict(os.environ, ORRERY_DEMO_SKIP_BUILD="1", ORRERY_BUILD=str(BUILD),
               ORRERY_DEMO_DIR=str(tmp / "demo"))
    done = run(["bash", SOURCE / "scripts" / "demo.sh"], tmp, timeout=80, env=env)
    check(done.returncode == 0, f"demo.sh failed: {done.stderr.strip()[-500:]}")
    exp = tmp / "demo" / "stencil2d_4"
    for name in ("traces.otf2", "run.json", "report.h5"):
        check((exp / name).exists(), f"the demo left no {name}")
    check("demo: done" in done.stdout, "demo.sh did not finish")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("test")
    parser.add_argument("--probe", required=True)
    parser.add_argument("--static", required=True)
    parser.add_argument("--mpirun", default="mpirun")
    ARGS = parser.parse_args()
    ARGS.probe = str(Path(ARGS.probe).resolve())
    ARGS.static = str(Path(ARGS.static).resolve())
    test = globals().get("test_" + ARGS.test)
    if test is None:
        print(f"no test {ARGS.test}")
        return 2
    with tempfile.TemporaryDirectory(prefix=f"orrery-e2e-{ARGS.test}-") as tmp:
        try:
            test(Path(tmp))
        except Failure as failure:
            print(f"FAIL measure.e2e.{ARGS.test}: {failure}")
            return 1
    print(f"PASS measure.e2e.{ARGS.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
