#!/usr/bin/env python3
"""Mutation check of the pattern and replay formulas (docs/testing.md).

usage: tests/mutations.py [--keep DIR] [NAME ...]

Clones the committed tree into a scratch directory, builds it once, then for
each mutation below (or the NAMEs given): applies the one-line change, builds
incrementally, runs the pattern-level and analyzer tests, and reverts. A
mutation that no test notices "survives" and is printed; the exit status is 1
if any survives. Run by hand (it takes a few minutes per mutation on two
cores), not in CI.

Mutations marked equivalent change no answer any consistent input can give,
with the reason; they are applied and must survive (if one is ever killed,
the reason is wrong and needs a second look).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (file, old text, new text, equivalent-because or None)
MUTATIONS = {
    "bytes_coll_in_reports_sent": (
        "patterns/src/message_counters.cpp",
        "static_cast<double>(e.bytes_received)};\n      });\n}\nstd::unique_ptr<Pattern> make_collectives",
        "static_cast<double>(e.bytes_sent)};\n      });\n}\nstd::unique_ptr<Pattern> make_collectives",
        None),
    "late_broadcast_waits_for_latest": (
        "patterns/src/collective_patterns.cpp",
        "return wait_until(e, e.root_enter);",
        "return wait_until(e, latest_enter(e));",
        None),
    "late_broadcast_counts_the_root": (
        "patterns/src/collective_patterns.cpp",
        "e.root >= e.participants || e.my_rank == e.root) {",
        "e.root >= e.participants) {",
        None),
    "early_reduce_on_every_rank": (
        "patterns/src/collective_patterns.cpp",
        "if (e.root == analyzer::kNone || e.my_rank != e.root) return 0;",
        "if (e.root == analyzer::kNone) return 0;",
        None),
    "early_scan_counts_rank_zero": (
        "patterns/src/collective_patterns.cpp",
        "if (e.my_rank == 0) return 0;",
        "",
        None),
    "early_scan_ignores_exscan": (
        "patterns/src/collective_patterns.cpp",
        "      CollectiveKind::kExscan);",
        "      CollectiveKind::kOther);",
        None),
    "wait_not_clipped_to_exit": (
        "patterns/src/collective_patterns.cpp",
        "return std::min(ready, e.call.exit) - e.call.enter;",
        "return ready - e.call.enter;",
        None),
    "completion_ignores_own_enter": (
        "patterns/src/collective_patterns.cpp",
        "std::max(std::min(latest_enter(e), e.call.exit), e.call.enter);",
        "std::min(latest_enter(e), e.call.exit);",
        None),
    "group_of_one_waits": (
        "patterns/src/collective_patterns.cpp",
        "if (e.participants < 2) return;",
        "",
        None),
    "late_sender_not_clipped": (
        "patterns/src/late_sender.cpp",
        "std::min(e.latest_send_enter, e.call.exit) - e.call.enter;",
        "e.latest_send_enter - e.call.enter;",
        None),
    "late_receiver_counts_eager_sends": (
        "patterns/src/late_receiver.cpp",
        "if (e.call.exit <= e.latest_recv_enter) return;",
        "",
        None),
    "late_receiver_overlaps_late_sender": (
        "patterns/src/late_receiver.cpp",
        "const int64_t start = std::max(e.call.enter, std::min(e.latest_send_enter, e.call.exit));",
        "const int64_t start = e.call.enter;",
        None),
    "wrong_order_window_of_one": (
        "patterns/src/late_sender_wrong_order.cpp",
        "kWindow = 100;",
        "kWindow = 1;",
        None),
    "early_scan_counts_own_enter": (
        "analyzer/src/replay_collectives.cpp",
        "MPI_Exscan(MPI_IN_PLACE, below.data(), static_cast<int>(m), MPI_INT64_T, MPI_MAX, comm);",
        "MPI_Scan(MPI_IN_PLACE, below.data(), static_cast<int>(m), MPI_INT64_T, MPI_MAX, comm);",
        "a rank's own start enter is at or before the enter of the call that completes "
        "it, so when it is the maximum, min(ready, exit) - enter(call) <= 0 either way"),
    "early_reduce_counts_root_enter": (
        "analyzer/src/replay_collectives.cpp",
        "slots[kLatestEnterOfOthers] = has_root && rank != event.root ? event.start_enter : INT64_MIN;",
        "slots[kLatestEnterOfOthers] = has_root ? event.start_enter : INT64_MIN;",
        "as above: the root's own enter, when it is the latest, gives a waiting <= 0"),
}

TESTS = r"^(patterns|analyzer)\."


def run(command, cwd, quiet=True):
    return subprocess.run(command, cwd=cwd, text=True,
                          stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.STDOUT if quiet else None)


def build(tree):
    # Everything: the analyzer tests need the analyzer, its test programs and tools.
    result = run(["cmake", "--build", "build", "-j2"], tree)
    return result.returncode == 0


def tests_pass(tree):
    environment = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    result = subprocess.run(["ctest", "--test-dir", "build", "-R", TESTS, "-j2", "--timeout", "180"],
                            cwd=tree, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=environment)
    return result.returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="mutations to apply (default: all)")
    parser.add_argument("--keep", help="scratch directory to reuse (default: a new temporary one)")
    args = parser.parse_args()
    names = args.names or list(MUTATIONS)
    unknown = [n for n in names if n not in MUTATIONS]
    if unknown:
        print("mutations.py: unknown mutation(s): " + ", ".join(unknown), file=sys.stderr)
        return 2
    tree = args.keep or tempfile.mkdtemp(prefix="orrery-mutants-")
    if not os.path.exists(os.path.join(tree, ".git")):
        run(["git", "clone", "-q", ROOT, tree], ROOT)
    launcher = []
    if shutil.which("ccache"):
        launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
         "-DORRERY_BUILD_BENCHMARKS=OFF", "-DORRERY_BUILD_VIEWER_FRONTEND=OFF", *launcher], tree)
    if not build(tree) or not tests_pass(tree):
        print("mutations.py: the unmutated tree does not build or pass in " + tree, file=sys.stderr)
        return 1
    survivors = []
    for name in names:
        path, old, new, equivalent = MUTATIONS[name]
        source = os.path.join(tree, path)
        with open(source) as f:
            original = f.read()
        if original.count(old) != 1:
            print("%-40s NOT APPLICABLE (the text changed; update the mutation)" % name)
            survivors.append(name)
            continue
        with open(source, "w") as f:
            f.write(original.replace(old, new))
        try:
            if not build(tree):
                verdict = "killed (does not build)"
            elif tests_pass(tree):
                verdict = "survived" + (" (equivalent: %s)" % equivalent if equivalent else "")
                if not equivalent:
                    survivors.append(name)
            else:
                verdict = "killed" + (" -- BUT MARKED EQUIVALENT: recheck" if equivalent else "")
                if equivalent:
                    survivors.append(name)
        finally:
            with open(source, "w") as f:
                f.write(original)
        print("%-40s %s" % (name, verdict), flush=True)
    build(tree)
    if not args.keep:
        shutil.rmtree(tree, ignore_errors=True)
    if survivors:
        print("%d mutation(s) need attention: %s" % (len(survivors), ", ".join(survivors)))
        return 1
    print("every mutation is killed (or proved equivalent)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
