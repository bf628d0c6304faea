#!/usr/bin/env python3
"""End-to-end: nested OpenMP parallel regions (nested_openmp.c, two active
levels) measured with `orrery run` (OMPT), read by otf2-print and analyzed.

    run_nested.py gcc | clang

Checks: otf2-print reads the trace clean and every event the measurement
wrote (on every thread, those that served only a nested team included);
the outer team's threads keep their OpenMP numbers (thread 1 is outer thread
1, whose inner region took 2 units longer); the outer barrier's
omp_barrier_wait per outer thread equals min(latest arrival, departure) -
arrival from the threads' own clock readings (GCC's explicit barrier is an
implicit one to libomp: every barrier of the outer region counts); every (outer, inner) thread's
work is the time of the inner region on some location; no omp or
omp_barrier_wait value is negative. Each inner team's barrier (the team
recorded by the "OpenMP team" attribute of every implicit task's Enter):
omp_barrier_wait per inner thread equals min(latest arrival, departure) -
arrival from the threads' own clock readings (inner thread 0 is outer
thread o; inner thread 1 served only the nested team, its location the
other member of that team in the trace). Communicators created on threads
(each thread its own MPI_Comm_dup, a worker's MPI_Comm_split): Wait at
Barrier and Wait at NxN on the thread that called, against the threads'
own clock readings (min(latest enter, exit(self)) - enter(self)), and no
summary warning about communicators created on worker threads. Requests
completed on another thread than the one that posted them: the completion
event on the thread that completed it, with the post's request id; the
Late Sender of a worker's MPI_Irecv in the MPI thread's MPI_Wait, and the
Wait at NxN of a worker's MPI_Iallreduce in the MPI thread's MPI_Wait
(analyzed from that wait: min(latest wait enter, exit(self)) -
enter(self)), against the threads' own clocks.
Tolerances as run_hybrid.py's.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_hybrid import ABS_TOL, Report, build_clang, close, fail, measure_and_analyze, otf2_events  # noqa: E402

NP = 2


def read_observed(outdir):
    observed = []
    for r in range(NP):
        with open(os.path.join(outdir, "rank%d.txt" % r)) as f:
            observed.append({key: float(value) for key, value in (line.split() for line in f)})
    return observed


def parallel_regions(report):
    """(outer, inner) region names: the parallel region entered inside
    another, and that one (names may lack source lines)."""
    def is_parallel(region):
        return report.regions[region].startswith("!$omp parallel @")
    outer, inner = set(), set()
    for parent, region in report.callpaths:
        if is_parallel(region) and parent >= 0 and is_parallel(report.callpaths[parent][1]):
            inner.add(report.regions[region])
            outer.add(report.regions[report.callpaths[parent][1]])
    if len(outer) != 1 or len(inner) != 1:
        fail("parallel regions in the report: outer %s, inner %s" % (sorted(outer), sorted(inner)))
    return outer.pop(), inner.pop()


def check_inner_barriers(report, observed, inner_teams, inner, failures):
    """Each inner team's barrier instances: omp_barrier_wait of every
    member against the members' own clock readings."""
    def barrier_wait(r, location):
        return report.value("omp_barrier_wait", report.location(r, location), lambda n: "barrier" in n,
                            lambda n: n == inner)
    for r in range(NP):
        o = observed[r]
        expected = {}
        for k in range(2):
            latest = max(o["inner_arrive_%d_%d" % (k, i)] for i in range(2))
            for i in range(2):
                expected[(k, i)] = min(latest, o["inner_leave_%d_%d" % (k, i)]) - o["inner_arrive_%d_%d" % (k, i)]
        # Inner thread 0 of team k is outer thread k; inner thread 1 the
        # other member of its team (the trace's team attribute).
        located = {(k, 0): k for k in range(2)}
        for (rank, _), members in inner_teams.items():
            threads = sorted(location >> 32 for location in members)
            if rank == r and len(threads) == 2 and threads[0] < 2:
                located[(threads[0], 1)] = threads[1]
        if len(located) != 4:
            failures.append("rank %d: inner teams %s" % (r, located))
            continue
        for (k, i), t in sorted(located.items()):
            actual = barrier_wait(r, t)
            line = "rank %d inner team of outer thread %d, inner thread %d (location %d) omp_barrier_wait %.4f " \
                   "(observed %.4f)" % (r, k, i, t, actual, expected[(k, i)])
            ok = close(actual, expected[(k, i)]) and (expected[(k, i)] < ABS_TOL or actual > 0)
            (print if ok else failures.append)(line)


def check_team_attribute(exp, inner, failures):
    """otf2-print shows the team attribute on every implicit task's Enter;
    per rank the inner region's instances are 2 teams of 2 locations each.
    Returns {(rank, team): locations} of the inner region."""
    lines = subprocess.run(["otf2-print", os.path.join(exp, "traces.otf2")],
                           capture_output=True, text=True, timeout=120).stdout.splitlines()
    missing, inner_teams = 0, {}
    for line, following in zip(lines, lines[1:] + [""]):
        m = re.match(r'^ENTER\s+(\d+)\s+\d+\s+Region: "(!\$omp parallel[^"]*)"', line)
        if not m:
            continue
        team = re.search(r'\("OpenMP team" <\d+>; UINT64; (\d+)\)', following)
        if team is None:
            missing += 1
        elif m.group(2) == inner:
            location = int(m.group(1))
            inner_teams.setdefault((location & 0xffffffff, int(team.group(1))), set()).add(location)
    sizes = sorted(len(members) for members in inner_teams.values())
    if missing or sizes != [2] * 2 * NP:
        failures.append("team attribute: %d implicit task Enters without it; inner teams' sizes %s" % (missing, sizes))
    else:
        print("team attribute on every implicit task; inner teams per rank %s" % sorted(inner_teams))
    return inner_teams


def check_thread_communicators(report, observed, failures):
    """Each thread's own MPI_Comm_dup and thread 1's MPI_Comm_split: the
    collectives on them paired by communicator (recorded as MPI_COMM_WORLD
    they would pair with each other in start order, which the delays make
    differ), each wait on the thread that called."""
    def in_parallel(name):
        return name.startswith("!$omp parallel")
    cases = [("wait_at_barrier", "MPI_Barrier", "barrier_enter_%d" % t, "barrier_exit_%d" % t, t) for t in range(2)]
    cases.append(("wait_at_nxn", "MPI_Allreduce", "split_enter", "split_exit", 1))
    for metric, region, enter, leave, thread in cases:
        latest = max(o[enter] for o in observed)
        for r in range(NP):
            o = observed[r]
            expected = min(latest, o[leave]) - o[enter]
            actual = report.value(metric, report.location(r, thread), lambda n, name=region: n == name, in_parallel)
            line = "rank %d thread %d %s at %s on its communicator %.4f (observed %.4f)" % (
                r, thread, metric, region, actual, expected)
            (print if close(actual, expected) and (expected < ABS_TOL or actual > 0) else failures.append)(line)


def request_id(rest):
    return int(re.search(r"Request: (\d+)", rest).group(1))


def check_requests_across_threads(report, observed, events, failures):
    """nested_openmp.c requests_across_threads: each completion on the
    thread that completed the request, with the id of its post on another
    thread, and the wait states there."""
    def ids(kind, rank, thread):
        return [request_id(rest) for k, loc, _, rest in events
                if k == kind and loc & 0xffffffff == rank and loc >> 32 == thread]
    pairs = [("MPI_IRECV_REQUEST", "MPI_IRECV", 0, 1, 0), ("MPI_ISEND", "MPI_ISEND_COMPLETE", 0, 0, 1)]
    pairs += [("NON_BLOCKING_COLLECTIVE_REQUEST", "NON_BLOCKING_COLLECTIVE_COMPLETE", r, 1, 0) for r in range(NP)]
    for post, completion, rank, poster, completer in pairs:
        posted, completed = ids(post, rank, poster), ids(completion, rank, completer)
        if len(posted) != 1 or posted != completed:
            failures.append("rank %d: %s on thread %d %s, %s on thread %d %s" %
                            (rank, post, poster, posted, completion, completer, completed))
        else:
            print("rank %d: %s of thread %d completed on thread %d (request %d)" %
                  (rank, post, poster, completer, posted[0]))
    o0, o1 = observed
    checks = [("late_sender", 0, max(0.0, min(o1["irecv_send_enter"], o0["irecv_wait_exit"]) - o0["irecv_wait_enter"]))]
    latest = max(o["iallreduce_wait_enter"] for o in observed)
    for r, o in enumerate(observed):
        checks.append(("wait_at_nxn", r, min(latest, o["iallreduce_wait_exit"]) - o["iallreduce_wait_enter"]))
    for metric, rank, expected in checks:
        actual = report.value(metric, report.location(rank, 0), lambda n: n == "MPI_Wait")
        line = "rank %d MPI thread %s at MPI_Wait of a request posted on thread 1 %.4f (observed %.4f)" % (
            rank, metric, actual, expected)
        (print if close(actual, expected) and (expected < ABS_TOL or actual > 0) else failures.append)(line)


def main():
    variant = sys.argv[1]
    build = os.environ["ORRERY_BUILD_DIR"]
    work = tempfile.mkdtemp(prefix="orrery-nested-%s-" % variant)
    exp, outdir = os.path.join(work, "exp"), os.path.join(work, "observed")
    os.makedirs(outdir)
    program = build_clang(work, "nested_openmp") if variant == "clang" else \
        os.path.join(build, "bin", "openmp_nested")
    summary = measure_and_analyze(build, exp, NP, [program, outdir])
    observed = read_observed(outdir)
    if any(o["inner_threads_%d" % k] != 2 for o in observed for k in range(2)):
        fail("the runtime did not nest (inner team sizes %s)" %
             [[o["inner_threads_%d" % k] for k in range(2)] for o in observed])

    # The trace: every event of every thread read by otf2-print.
    import json
    with open(os.path.join(exp, "run.json")) as f:
        record = json.load(f)
    events = otf2_events(exp)
    counted = record["measurement"]["statistics"]["total"]["events"]
    if len(events) != counted:
        fail("otf2-print read %d events, the measurement wrote %d" % (len(events), counted))
    threads = {r: sorted({loc >> 32 for _, loc, _, _ in events if loc & 0xffffffff == r}) for r in range(NP)}
    if any(len(t) < 4 for t in threads.values()):
        fail("threads per rank %s: expected the 2 outer threads and one more per inner team" % threads)
    print("trace: %d events, threads per rank %s" % (counted, threads))

    report = Report(os.path.join(exp, "report.h5"))
    outer, inner = parallel_regions(report)
    failures = []
    for r in range(NP):
        o = observed[r]
        latest = max(o["arrive_0"], o["arrive_1"])
        for t in range(2):
            expected = min(latest, o["leave_%d" % t]) - o["arrive_%d" % t]
            actual = report.value("omp_barrier_wait", report.location(r, t), lambda n: "barrier" in n,
                                  lambda n: n == outer)
            line = "rank %d outer thread %d omp_barrier_wait %.4f (observed %.4f)" % (r, t, actual, expected)
            (print if close(actual, expected) and (expected < ABS_TOL or actual > 0) else failures.append)(line)
        # Each (outer, inner) thread's work: the inner region's time on some location of the rank.
        times = sorted(report.value("time", report.location(r, t), lambda n: n == inner)
                       for t in threads[r])
        works = sorted(o["work_%d_%d" % (k, i)] for k in range(2) for i in range(2))
        served = [v for v in times if v > 0]
        if len(served) != 4 or not all(close(a, e) or a > e for a, e in zip(served, works)):
            failures.append("rank %d time in the inner region per location %s, work observed %s" % (r, times, works))
        else:
            print("rank %d inner region per location %s (work %s)" %
                  (r, ", ".join("%.3f" % v for v in served), ", ".join("%.3f" % v for v in works)))
    inner_teams = check_team_attribute(exp, inner, failures)
    check_inner_barriers(report, observed, inner_teams, inner, failures)
    check_thread_communicators(report, observed, failures)
    check_requests_across_threads(report, observed, events, failures)
    for warning in ("had no matching post", "had no partner"):
        if warning in summary:
            failures.append("the summary warns: requests or messages %s" % warning)
    if "communicators were created on OpenMP worker threads" in summary:
        failures.append("the summary warns about communicators created on worker threads")
    for metric in ("omp", "omp_barrier_wait"):
        lowest = float(report.values[metric].min())
        if lowest < -1e-9:
            failures.append("%s has a negative value %.6f" % (metric, lowest))
    if failures:
        fail("; ".join(failures))
    print("ok")


if __name__ == "__main__":
    main()
