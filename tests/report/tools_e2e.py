#!/usr/bin/env python3
"""End-to-end tests of the `orrery` cube tools on cubes written with h5py.

usage: tools_e2e.py ORRERY SECTION   (SECTION: stat_tree | algebra | bad_input | damaged |
                                       corpus | memory_limit)

Each check runs the real command line and compares its output with what numpy
computes from the same file (cubes.Reference)."""

import csv
import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubes  # noqa: E402

ORRERY = sys.argv[1]
FAILURES = []
CHECKS = [0]


def run(*args, expect=0):
    result = subprocess.run([ORRERY, *map(str, args)], capture_output=True, text=True,
                            timeout=60)
    if result.returncode != expect:
        FAILURES.append("orrery %s: exit %d, expected %d; stderr: %s"
                        % (" ".join(map(str, args)), result.returncode, expect, result.stderr))
    return result


def check(condition, message):
    CHECKS[0] += 1
    if not condition:
        FAILURES.append(message)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def check_close(actual, expected, what):
    check(close(actual, expected), "%s: got %r, expected %r" % (what, actual, expected))


def make_cube(directory, name, seed, n_callpaths=40, ranks=range(5), fixed_strings=False):
    rng = np.random.default_rng(seed)
    names = ["solve", "exchange", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "io", "compute"]
    tree = cubes.random_tree(rng, n_callpaths, names)
    path = os.path.join(directory, name)
    cubes.write_cube(path, tree, list(ranks), cubes.random_values(rng, tree, list(ranks)),
                     fixed_strings=fixed_strings)
    return path


# ---- stat and tree -------------------------------------------------------------------

def check_stat_json(path, metric, exclusive_metric, inclusive):
    ref = cubes.Reference(path)
    args = ["stat", path, "--metric", metric, "--top", 0, "--format", "json"]
    args += ["--exclusive-metric"] if exclusive_metric else []
    args += ["--inclusive"] if inclusive else []
    out = json.loads(run(*args).stdout or "{}")
    exclusive = ref.exclusive(metric, not exclusive_metric)
    inclusive_matrix = ref.inclusive(exclusive)
    basis = inclusive_matrix if inclusive else exclusive
    check(len(out.get("callpaths", [])) == len(ref.labels), "stat lists every call path")
    check_close(out.get("total", -1), exclusive.sum(), "stat total")
    # The sub-metrics summed in, each with its own sub-metrics included:
    # the children's totals plus the metric's own value give the total.
    subs = out.get("submetrics", [])
    if not exclusive_metric:
        children = [s for s in subs if s["parent"] == metric]
        own = ref.exclusive(metric, False).sum()
        check_close(own + sum(s["total"] for s in children), exclusive.sum(),
                    "stat %s: own + of which = total" % metric)
        for sub in subs:
            check_close(sub["total"], ref.exclusive(sub["metric"], True).sum(),
                        "stat %s: of which %s" % (metric, sub["metric"]))
    else:
        check(subs == [], "stat --exclusive-metric lists no sub-metrics")
    for entry in out.get("callpaths", []):
        row = entry["row"]
        what = "stat %s %s row %d" % (metric, "incl" if inclusive else "excl", row)
        check(entry["callpath"] == ref.labels[row], what + " label")
        check_close(entry["exclusive"], exclusive[row].sum(), what + " exclusive")
        check_close(entry["inclusive"], inclusive_matrix[row].sum(), what + " inclusive")
        check_close(entry["min"], basis[row].min(), what + " min")
        check_close(entry["mean"], basis[row].mean(), what + " mean")
        check_close(entry["max"], basis[row].max(), what + " max")
        mean = basis[row].mean()
        check_close(entry["cv"], basis[row].std() / abs(mean) if mean else 0.0, what + " cv")
    keys = [abs(e["inclusive" if inclusive else "exclusive"]) for e in out.get("callpaths", [])]
    check(keys == sorted(keys, reverse=True), "stat sorted hottest first")
    per_rank = exclusive.sum(axis=0)
    for entry in out.get("processes", []):
        check_close(entry["value"], per_rank[ref.ranks.index(entry["rank"])], "stat process value")


def check_stat_csv_and_table(path):
    ref = cubes.Reference(path)
    exclusive = ref.exclusive("mpi")
    rows = list(csv.DictReader(io.StringIO(run("stat", path, "-m", "mpi", "-k", 5,
                                               "--format", "csv").stdout)))
    check(len(rows) == min(5, len(ref.labels)), "stat --top 5 gives 5 CSV rows")
    for row in rows:
        r = int(row["row"])
        check(row["callpath"] == ref.labels[r], "stat csv label")
        check_close(float(row["exclusive"]), exclusive[r].sum(), "stat csv exclusive")
        check_close(float(row["max"]), exclusive[r].max(), "stat csv max")
    hottest = int(np.argmax(np.abs(exclusive.sum(axis=1))))
    table = run("stat", path, "-m", "mpi").stdout
    check(ref.labels[hottest] in table, "stat table names the hottest call path")
    # --callpath restricts to matching call paths (by region name here).
    rows = list(csv.DictReader(io.StringIO(run("stat", path, "-m", "time", "-k", 0, "-c",
                                               "MPI_.*", "--format", "csv").stdout)))
    expected = [r for r, name in enumerate(ref.names) if name.startswith("MPI_")]
    check(sorted(int(r["row"]) for r in rows) == expected, "stat --callpath regex")
    # With --callpath, the processes table adds up the chosen call paths only (and with
    # --inclusive, the outermost chosen ones, so nothing counts twice).
    exclusive = ref.exclusive("time")
    inclusive = ref.inclusive(exclusive)
    chosen = [name in ("solve", "exchange") for name in ref.names]
    outermost = []
    for row, parent in enumerate(ref.parents):
        inside = False
        while parent >= 0:
            inside = inside or chosen[parent]
            parent = ref.parents[parent]
        outermost.append(chosen[row] and not inside)
    for flag, matrix, mask in (([], exclusive, chosen), (["-i"], inclusive, outermost)):
        out = json.loads(run("stat", path, "-c", "solve|exchange", "-k", 0, "--format", "json",
                             *flag).stdout or "{}")
        per_rank = matrix[np.array(mask, dtype=bool)].sum(axis=0)
        check(len(out.get("processes", [])) == len(ref.ranks), "stat -c lists the processes")
        for entry in out.get("processes", []):
            check_close(entry["value"], per_rank[ref.ranks.index(entry["rank"])],
                        "stat -c %s process value" % flag)


def check_tree(path):
    ref = cubes.Reference(path)
    exclusive = ref.exclusive("time")
    inclusive = ref.inclusive(exclusive)
    total = exclusive.sum()
    for flag in ([], ["--inclusive"]):
        out = json.loads(run("tree", path, "--format", "json", *flag).stdout or "{}")
        nodes = out.get("nodes", [])
        check(len(nodes) == len(ref.labels), "tree shows every call path without threshold")
        for node in nodes:
            row = node["row"]
            check(node["callpath"] == ref.labels[row] and node["parent"] == ref.parents[row],
                  "tree node identity")
            check_close(node["exclusive"], exclusive[row].sum(), "tree exclusive")
            check_close(node["inclusive"], inclusive[row].sum(), "tree inclusive")
            shown = inclusive[row].sum() if flag else exclusive[row].sum()
            check_close(node["percent"], 100 * shown / total, "tree percent")
    threshold = 10.0
    rows = list(csv.DictReader(io.StringIO(run("tree", path, "--threshold", threshold,
                                               "--format", "csv").stdout)))
    shown = {int(r["row"]) for r in rows}
    for row in range(len(ref.labels)):
        visible = inclusive[row].sum() >= total * threshold / 100 and (
            ref.parents[row] < 0 or ref.parents[row] in shown)
        check((row in shown) == visible, "tree threshold row %d" % row)
    check("main" in run("tree", path).stdout, "tree table shows the root")


def section_stat_tree(directory):
    for fixed in (False, True):  # h5py's variable- and fixed-length strings
        path = make_cube(directory, "a%d.h5" % fixed, seed=1 + fixed, fixed_strings=fixed)
        for metric in ("time", "mpi", "visits"):
            for exclusive_metric in (False, True):
                for inclusive in (False, True):
                    check_stat_json(path, metric, exclusive_metric, inclusive)
        check_stat_csv_and_table(path)
        check_tree(path)
    info = json.loads(run("info", path, "--format", "json", "--totals").stdout or "{}")
    ref = cubes.Reference(path)
    check(info.get("callpaths") == len(ref.labels), "info call paths")
    check(len(info.get("locations", [])) == len(ref.ranks), "info locations")
    for entry in info.get("metrics", []):
        check_close(entry["total"], ref.values[entry["name"]].sum(), "info total " + entry["name"])
        check_close(entry["total_with_submetrics"], ref.exclusive(entry["name"], True).sum(),
                    "info total with sub-metrics " + entry["name"])
    explained = json.loads(run("info", path, "-m", "mpi", "--format", "json").stdout or "{}")
    check(explained.get("description") == "about mpi" and explained.get("parent") == "execution"
          and explained.get("children") == ["late_sender"] and explained.get("diagnosis") == "",
          "info --metric explains the metric: %r" % explained)


# ---- algebra, compare, export ---------------------------------------------------------

def by_label(ref, metric):
    """{(call path label, rank): value} of a file, summing duplicate labels."""
    out = {}
    for row, label in enumerate(ref.labels):
        for col, rank in enumerate(ref.ranks):
            out[(label, rank)] = out.get((label, rank), 0.0) + ref.values[metric][row, col]
    return out


def section_algebra(directory):
    a = make_cube(directory, "a.h5", seed=11, ranks=range(4))
    b = make_cube(directory, "b.h5", seed=12, n_callpaths=30, ranks=range(6))  # other tree, ranks
    ra, rb = cubes.Reference(a), cubes.Reference(b)
    d = os.path.join(directory, "d.h5")
    run("diff", a, b, "-o", d)
    rd = cubes.Reference(d)
    check(set(rd.labels) == set(ra.labels) | set(rb.labels), "diff unites the call trees")
    check(sorted(rd.ranks) == list(range(6)), "diff unites the ranks")
    for metric in ("time", "visits"):
        va, vb, vd = by_label(ra, metric), by_label(rb, metric), by_label(rd, metric)
        for key, value in vd.items():
            check_close(value, va.get(key, 0.0) - vb.get(key, 0.0), "diff %s %s" % (metric, key))
    m = os.path.join(directory, "m.h5")
    run("mean", a, b, a, "-o", m)
    vm, va, vb = by_label(cubes.Reference(m), "mpi"), by_label(ra, "mpi"), by_label(rb, "mpi")
    for key, value in vm.items():
        check_close(value, (2 * va.get(key, 0.0) + vb.get(key, 0.0)) / 3, "mean %s" % (key,))
    merged = os.path.join(directory, "merged.h5")
    run("merge", a, b, "-o", merged)
    vm = by_label(cubes.Reference(merged), "time")
    for key, value in vm.items():
        check_close(value, va_time(ra).get(key, 0.0), "merge keeps the first input's time")
    # cut: re-root at "solve" keeps exactly the subtrees under each solve.
    cut = os.path.join(directory, "cut.h5")
    run("cut", a, "--root", "solve", "-o", cut)
    rc = cubes.Reference(cut)
    expected = sorted(label[label.index("solve"):] for label in ra.labels
                      if "solve" in label.split("/"))
    check(sorted(rc.labels) == sorted(set(expected)) or len(rc.labels) <= len(expected),
          "cut --root keeps the solve subtrees")
    check_close(rc.values["time"].sum(), sum(ra.values["time"][r].sum()
                                             for r, label in enumerate(ra.labels)
                                             if "solve" in label.split("/")),
                "cut --root keeps the values below solve")
    pruned = os.path.join(directory, "pruned.h5")
    run("cut", a, "--prune", "main", "-o", pruned)
    rp = cubes.Reference(pruned)
    check(rp.labels == ["main"], "cut --prune main leaves only main")
    for metric in ra.metrics:
        check_close(rp.values[metric].sum(), ra.values[metric].sum(), "prune keeps " + metric)
    # compare: per call path totals of each run (per-process too), change against A.
    out = json.loads(run("compare", a, b, "--metric", "time", "--top", 0, "--format", "json")
                     .stdout or "{}")
    ta, tb = ra.exclusive("time").sum(axis=1), rb.exclusive("time").sum(axis=1)
    sa = dict(zip(ra.labels, ta))
    sb = dict(zip(rb.labels, tb))
    entries = out.get("metrics", [{}])[0].get("callpaths", [])
    check(len(entries) > 0, "compare lists changed call paths")
    for entry in entries:
        label = entry["callpath"]
        check_close(entry["values"][0], sa.get(label, 0.0), "compare A " + label)
        check_close(entry["values"][1], sb.get(label, 0.0), "compare B " + label)
        check_close(entry["change"][1], sb.get(label, 0.0) - sa.get(label, 0.0), "compare change")
    out = json.loads(run("compare", a, b, "-m", "visits", "--per-process", "--format", "json")
                     .stdout or "{}")
    totals = out.get("metrics", [{}])[0].get("totals", [0, 0])
    check_close(totals[0], ra.values["visits"].sum() / 4, "compare --per-process A")
    check_close(totals[1], rb.values["visits"].sum() / 6, "compare --per-process B")
    check("time" in run("compare", a, b).stdout, "compare table")
    # export: CSV and JSON hold exactly the file's values.
    rows = list(csv.DictReader(io.StringIO(run("export", a, "--format", "csv", "-m", "mpi",
                                               "--zeros").stdout)))
    check(len(rows) == ra.values["mpi"].size, "export csv --zeros has every value")
    for row in rows:
        value = ra.values["mpi"][int(row["callpath_row"]), ra.ranks.index(int(row["rank"]))]
        check(float(row["value"]) == value, "export csv value exact")
    doc = json.loads(run("export", a, "--format", "json").stdout or "{}")
    for metric in ra.metrics:
        check(np.array_equal(np.array(doc["values"][metric]), ra.values[metric]),
              "export json " + metric)
    check([c["path"] for c in doc["callpaths"]] == ra.labels, "export json call paths")


def va_time(ref):
    return by_label(ref, "time")


# ---- bad input and bad usage ----------------------------------------------------------

def expect_one_line(result, command, words):
    lines = result.stderr.strip().splitlines()
    check(len(lines) == 1, "%s: one line on stderr, got %r" % (command, result.stderr))
    check(result.stderr.startswith("orrery %s: " % command),
          "%s: message starts with the command: %r" % (command, result.stderr))
    for word in words:
        check(word in result.stderr, "%s: %r not in %r" % (command, word, result.stderr))
    check("Traceback" not in result.stderr and "terminate" not in result.stderr, "no crash")


def section_bad_input(directory):
    good = make_cube(directory, "good.h5", seed=5)
    missing = os.path.join(directory, "missing.h5")
    text = os.path.join(directory, "text.h5")
    with open(text, "w") as f:
        f.write("not an HDF5 file\n" * 10)
    truncated = os.path.join(directory, "truncated.h5")
    with open(good, "rb") as f:
        data = f.read()
    with open(truncated, "wb") as f:
        f.write(data[: len(data) // 2])
    other_format = os.path.join(directory, "other.h5")
    rng = np.random.default_rng(1)
    tree = cubes.random_tree(rng, 5, ["a", "b"])
    cubes.write_cube(other_format, tree, [0], {}, format_name="other-cube")
    other_version = os.path.join(directory, "v2.h5")
    cubes.write_cube(other_version, tree, [0], {}, format_version=2)
    plain = os.path.join(directory, "plain.h5")
    with h5py.File(plain, "w") as f:
        f["x"] = np.arange(3)
    cases = [(missing, ["missing.h5", "no such file"]), (text, ["not an HDF5"]),
             (truncated, ["truncated.h5"]), (other_format, ["not an Orrery report", "other-cube"]),
             (other_version, ["format_version 2"]), (plain, ["not an Orrery report"])]
    for path, words in cases:
        for command in ("info", "stat", "tree", "export"):
            expect_one_line(run(command, path, expect=1), command, words)
        expect_one_line(run("diff", good, path, "-o", os.path.join(directory, "o.h5"), expect=1),
                        "diff", words)
        expect_one_line(run("compare", path, good, expect=1), "compare", words)
    for command in ("stat", "tree"):
        expect_one_line(run(command, good, "--metric", "no_such_metric", expect=1), command,
                        ["no_such_metric"])
    expect_one_line(run("compare", good, good, "-m", "nope", expect=1), "compare", ["nope"])
    expect_one_line(run("cut", good, "--root", "nowhere", "-o", os.path.join(directory, "c.h5"),
                        expect=1), "cut", ["nowhere"])
    check(not os.path.exists(os.path.join(directory, "c.h5")), "a failed cut leaves no file")
    usage = [("stat",), ("stat", good, "--format", "xml"), ("stat", good, "--bogus"),
             ("stat", good, "--top", "many"), ("tree", good, "--threshold", "200"),
             ("diff", good, "-o", "x.h5"), ("diff", good, good, good, "-o", "x.h5"),
             ("diff", good, good), ("cut", good, "-o", os.path.join(directory, "c.h5")),
             ("compare", good), ("export", good, "--format", "table"), ("info",),
             ("diff", good, good, "-o", good)]
    for args in usage:
        expect_one_line(run(*args, expect=2), args[0], [])
    for command in ("info", "stat", "tree", "diff", "merge", "mean", "cut", "compare", "export"):
        result = run(command, "--help")
        check("Usage" in result.stdout or "usage" in result.stdout.lower(),
              "%s --help prints usage" % command)
    check(cubes.Reference(good).metrics[0] == "time", "the good file is untouched")


def section_damaged(directory):
    fuzz_corpus(directory, make_cube(directory, "good.h5", seed=5))


def fuzz_corpus(directory, good):
    """Randomly damaged copies of a report: every command ends with status 0 or 1, never
    a signal, and a failure ends with the command's one-line message. (HDF5 1.10 can crash
    on damaged metadata; the tools turn that into exit 1. glibc may print its own line first
    when it is heap corruption that stops the process.)"""
    import random
    rng = random.Random(2026)
    with open(good, "rb") as f:
        data = f.read()
    damaged = os.path.join(directory, "damaged.h5")
    outcomes = {0: 0, 1: 0}
    for trial in range(40):
        copy = bytearray(data)
        for _ in range(rng.choice([1, 4, 16, 64])):
            copy[rng.randrange(len(copy))] = rng.randrange(256)
        with open(damaged, "wb") as f:
            f.write(copy)
        for args in (["stat", damaged], ["export", damaged, "--format", "json"],
                     ["tree", damaged, "-m", "visits"]):
            result = subprocess.run([ORRERY, *args], capture_output=True, text=True, timeout=60)
            what = "damaged copy %d, orrery %s" % (trial, args[0])
            check(result.returncode in (0, 1), "%s: exit %d" % (what, result.returncode))
            outcomes[result.returncode] = outcomes.get(result.returncode, 0) + 1
            if result.returncode == 1:
                last = (result.stderr.strip().splitlines() or [""])[-1]
                check(last.startswith("orrery %s: " % args[0]) and damaged in last,
                      "%s: message %r" % (what, result.stderr))
    check(outcomes[1] > 0, "some damaged copies are refused")


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
CORPUS_MEMORY_LIMIT_KB = 200 * 1024


def section_corpus(directory):
    """Every input that ever broke a tool: exit 1 with one line, no hang, under 200 MiB."""
    files = sorted(f for f in os.listdir(CORPUS) if not f.endswith(".md"))
    check(files, "the corpus is not empty")
    for name in files:
        path = os.path.join(CORPUS, name)
        for args in (["info", path], ["stat", path], ["tree", path],
                     ["export", path, "--format", "json"], ["view", path, "--no-trace"]):
            what = "corpus %s, orrery %s" % (name, args[0])
            process = subprocess.Popen([ORRERY, *args], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
            try:
                _, stderr = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                check(False, "%s: still running after 30 s" % what)
                continue
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            check(process.returncode == 1, "%s: exit %d" % (what, process.returncode))
            lines = stderr.strip().splitlines()
            check(len(lines) == 1 and lines[0].startswith("orrery %s: " % args[0]),
                  "%s: one line, got %r" % (what, stderr))
            # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: all stay below.
            check(usage.ru_maxrss < CORPUS_MEMORY_LIMIT_KB,
                  "%s: peak memory %d KiB" % (what, usage.ru_maxrss))


def section_memory_limit(directory):
    """ORRERY_MEMORY_LIMIT caps a tool (one line, exit 1 when the request needs more);
    orrery view --memory-limit answers 503 to such a request and keeps serving."""
    rng = np.random.default_rng(11)
    names = ["solve", "exchange", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "io", "compute"]
    tree = cubes.random_tree(rng, 1000, names)
    ranks = list(range(3000))  # 24 MB per metric in memory, a few hundred KB on disk
    path = os.path.join(directory, "wide.h5")
    cubes.write_cube(path, tree, ranks, {"time": np.ones((len(tree), len(ranks)))},
                     metrics=cubes.METRICS[:2])
    environment = dict(os.environ)
    for limit, expect in (("16M", 1), ("1G", 0)):
        environment["ORRERY_MEMORY_LIMIT"] = limit
        result = subprocess.run([ORRERY, "stat", path, "--metric", "time"], capture_output=True,
                                text=True, timeout=60, env=environment)
        check(result.returncode == expect, "ORRERY_MEMORY_LIMIT=%s: exit %d, expected %d (%s)"
              % (limit, result.returncode, expect, result.stderr.strip()))
        if expect == 1:
            lines = result.stderr.strip().splitlines()
            check(len(lines) == 1 and "out of memory" in lines[0] and limit in lines[0],
                  "ORRERY_MEMORY_LIMIT=%s: one line naming the limit, got %r" % (limit, result.stderr))
    environment["ORRERY_MEMORY_LIMIT"] = "4X"
    result = subprocess.run([ORRERY, "info", path], capture_output=True, text=True, timeout=60,
                            env=environment)
    check(result.returncode == 2 and "ORRERY_MEMORY_LIMIT" in result.stderr,
          "a malformed ORRERY_MEMORY_LIMIT is a usage error: exit %d, %r"
          % (result.returncode, result.stderr))

    import re
    import urllib.error
    import urllib.request
    server = subprocess.Popen([ORRERY, "view", path, "--no-browser", "--no-trace",
                               "--memory-limit", "16M"], stdout=subprocess.PIPE, text=True)
    try:
        line = ""
        while "token=" not in line:
            line = server.stdout.readline()
            if not line:
                break
        found = re.search(r"(http://[^/]+)/\?token=([0-9a-f]+)", line)
        check(found is not None, "orrery view printed its address: %r" % line)
        if found:
            def status(endpoint):
                request = urllib.request.Request(found.group(1) + "/api/" + endpoint,
                                                 headers={"X-Orrery-Token": found.group(2)})
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        return answer.status, answer.read()
                except urllib.error.HTTPError as error:
                    return error.code, error.read()
            code, body = status("callpaths?metric=0")
            check(code == 503 and b"--memory-limit" in body,
                  "a request beyond --memory-limit: %d %r" % (code, body[:200]))
            code, _ = status("info")
            check(code == 200, "the viewer keeps serving after a refused request: %d" % code)
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    section = sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="orrery-report-e2e-") as directory:
        {"stat_tree": section_stat_tree, "algebra": section_algebra,
         "bad_input": section_bad_input, "damaged": section_damaged,
         "corpus": section_corpus, "memory_limit": section_memory_limit}[section](directory)
    for failure in FAILURES[:40]:
        print("FAIL:", failure)
    if FAILURES:
        print("%d failures" % len(FAILURES))
        return 1
    if CHECKS[0] == 0:
        print("FAIL: section %s checked nothing" % sys.argv[2])
        return 1
    print("ok: %d checks" % CHECKS[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
