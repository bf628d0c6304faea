#!/usr/bin/env python3
"""Runs every command example of README.md and docs/*.md, so that the
documentation cannot drift from the program.

    run_doc_examples.py SOURCE_DIR BUILD_DIR

Examples are taken from fenced code blocks: in a block with "$ " prompts
the prompted lines, otherwise every line; only commands of Orrery
(`orrery`, `orrery-analyze`, `orrery-instrument`) and `mpirun` lines that
run `orrery-analyze` or `./app` (not a printed message such as `orrery view:
serving ...`). Comments (` # ...`) and the placeholders
`args...`/`[app arguments]` are dropped; rows of benchmark tables (a
command followed by columns of numbers) are not commands. A block preceded
by `<!-- docs-test: skip REASON -->` is skipped (and listed).

Each example runs in a fresh copy of a fixture directory whose names are the
documentation's placeholders: `app.c`/`app.o`/`app` (tests/docs/doc_app.c,
built with orrery-instrument), `EXP` (a measured and analyzed 4-rank run of
it, with `EXP/report.h5`), `EXP1`, `EXP2`, `before/`, `after/`, `run1/`
(each with a report.h5) and the report files `run1.h5`, `run2.h5`,
`run3.h5`, `A.h5`, `B.h5`, `before.h5`, `after.h5`, `time.h5`,
`counters.h5`, `CUBE`, `REPORT`. A command that measures (`orrery run`, or
`ORRERY_EXPERIMENT_DIR=EXP`) gets the copy without `EXP`. `mpirun` gets
`--oversubscribe`; `orrery view` gets `--no-browser --port 0` and passes
when it prints its address. Every other example must exit with 0. A command
written in several places runs once.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = ("orrery", "orrery-analyze", "orrery-instrument")
SKIP_MARK = re.compile(r"<!--\s*docs-test:\s*skip\b(.*?)-->")
FENCE = re.compile(r"^```(\w*)\s*$")
TABLE_ROW = re.compile(r"\s{2,}-?[\d.]+\s+-?[\d.]+")
REPORT_NAMES = ["run1.h5", "run2.h5", "run3.h5", "A.h5", "B.h5", "before.h5", "after.h5",
                "time.h5", "counters.h5", "CUBE", "REPORT"]
REPORT_DIRS = ["EXP1", "EXP2", "before", "after", "run1"]


def documentation(source):
    files = [os.path.join(source, "README.md")]
    docs = os.path.join(source, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return files


def is_example(command):
    words = command.split()
    if not words or any(w.endswith(":") for w in words[:2]):
        return False  # a message the program prints ("orrery view: serving ...")
    if words[0] in TOOLS:
        return True
    return words[0] == "mpirun" and any(w in ("orrery-analyze", "./app") or w.endswith("/orrery-analyze")
                                        for w in words)


def clean(line):
    line = re.sub(r"\s+#.*$", "", line)  # a comment after the command
    line = line.replace("[app arguments]", "").replace("args...", "")
    return " ".join(line.split())


def extract(path):
    """(line number, command) of every example in one Markdown file, and the skipped ones."""
    examples, skipped = [], []
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if not FENCE.match(lines[i]):
            i += 1
            continue
        start = i
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = list(enumerate(lines[start + 1:end], start + 2))
        before = "\n".join(lines[max(0, start - 3):start])
        skip = SKIP_MARK.search(before)
        prompted = [(n, l.strip()[2:]) for n, l in body if l.strip().startswith("$ ")]
        candidates = prompted if prompted else [(n, l.strip()) for n, l in body]
        for number, text in candidates:
            if TABLE_ROW.search(text):
                continue
            command = clean(text)
            if not is_example(command):
                continue
            if skip:
                skipped.append((number, command, skip.group(1).strip()))
            else:
                examples.append((number, command))
        i = end + 1
    return examples, skipped


def run(command, cwd, env, timeout=300):
    return subprocess.run(command, cwd=cwd, env=env, shell=True, capture_output=True, text=True,
                          timeout=timeout)


def make_fixture(work, source, build, env):
    fixture = os.path.join(work, "fixture")
    os.makedirs(fixture)
    os.symlink(build, os.path.join(fixture, "build"))
    shutil.copy(os.path.join(source, "tests", "docs", "doc_app.c"), os.path.join(fixture, "app.c"))
    steps = ["orrery-instrument mpicc -O2 -c app.c -o app.o",
             "orrery-instrument mpicc -O2 app.o -o app",
             "orrery run -o EXP -- mpirun --oversubscribe -np 4 ./app",
             "mpirun --oversubscribe -np 4 orrery-analyze -q EXP"]
    for step in steps:
        result = run(step, fixture, env)
        if result.returncode != 0:
            print("FAIL: fixture step %r (%d):\n%s%s" % (step, result.returncode, result.stdout,
                                                         result.stderr))
            sys.exit(1)
    report = os.path.join(fixture, "EXP", "report.h5")
    for name in REPORT_NAMES:
        shutil.copy(report, os.path.join(fixture, name))
    for name in REPORT_DIRS:
        os.makedirs(os.path.join(fixture, name))
        shutil.copy(report, os.path.join(fixture, name, "report.h5"))
    return fixture


def sandbox(fixture, work, index, measures):
    box = os.path.join(work, "example-%02d" % index)
    shutil.copytree(fixture, box, symlinks=True)
    if measures:
        shutil.rmtree(os.path.join(box, "EXP"))
    return box


def run_view(command, box, env):
    """`orrery view` serves until stopped: it passes when it prints its address."""
    process = subprocess.Popen(command + " --no-browser --port 0", cwd=box, env=env, shell=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    seen = []
    try:
        for line in process.stdout:
            seen.append(line)
            if "http://127.0.0.1" in line:
                return True, "".join(seen)
        return False, "".join(seen)
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)


def main():
    source, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    examples, skipped = [], []
    for path in documentation(source):
        found, passed_over = extract(path)
        name = os.path.relpath(path, source)
        examples += [(name, n, c) for n, c in found]
        skipped += [(name, n, c, why) for n, c, why in passed_over]
    # The extractor itself must not silently find nothing.
    if len(examples) < 20:
        print("FAIL: only %d command examples found in the documentation" % len(examples))
        sys.exit(1)
    # A command written in several places runs once; a failure names them all.
    places = {}
    for name, number, command in examples:
        places.setdefault(command, []).append("%s:%d" % (name, number))
    work = tempfile.mkdtemp(prefix="orrery-doc-examples-")
    fixture = make_fixture(work, source, build, env)
    failures = []
    for index, (command, where) in enumerate(places.items()):
        measures = command.startswith("orrery run") or "ORRERY_EXPERIMENT_DIR=EXP" in command
        box = sandbox(fixture, work, index, measures)
        executed = re.sub(r"\bmpirun\b", "mpirun --oversubscribe", command)
        try:
            if command.startswith("orrery view"):
                ok, output = run_view(executed, box, env)
            else:
                result = run(executed, box, env)
                ok, output = result.returncode == 0, result.stdout + result.stderr
        except subprocess.TimeoutExpired:
            ok, output = False, "timed out"
        print("%-4s %s  (%s)" % ("ok" if ok else "FAIL", command, ", ".join(where)))
        if not ok:
            print("     " + output.strip().replace("\n", "\n     "))
            failures += where
        shutil.rmtree(box, ignore_errors=True)
    for name, number, command, why in skipped:
        print("skip %s:%d  %s (%s)" % (name, number, command, why))
    print("%d examples (%d distinct commands) run, %d failed, %d skipped" %
          (len(examples), len(places), len(failures), len(skipped)))
    if failures:
        print("FAIL: examples that do not work as documented: " + ", ".join(failures))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
