#!/usr/bin/env python3
"""`orrery view` on the command line: a corrupt or missing report gives one
readable line and exit 1, bad usage exit 2, and a good report is served on
127.0.0.1 behind the printed token.

usage: cli_test.py ORRERY VIEWER_FIXTURE WORKDIR
"""
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

orrery, fixture, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def view(*args, timeout=20):
    return subprocess.run([orrery, "view", *args, "--no-browser"], capture_output=True, text=True,
                          timeout=timeout)


good = os.path.join(work, "good.h5")
subprocess.run([fixture, good, "--callpaths", "30", "--locations", "4"], check=True)
data = open(good, "rb").read()

broken = {
    "truncated.h5": data[: len(data) // 2],
    "garbage.h5": b"this is not a report\n" * 50,
    "empty.h5": b"",
    "zeroed-header.h5": b"\0" * 512 + data[512:],
}
for name, content in broken.items():
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(content)
    result = view(path)
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 1, f"{name}: exit {result.returncode}, expected 1")
    check(len(lines) == 1 and lines[0].startswith("orrery view: ") and name in lines[0],
          f"{name}: one readable line naming the file, got {result.stderr!r}")
    check("http://" not in result.stdout, f"{name}: nothing served")

result = view(os.path.join(work, "missing.h5"))
check(result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1,
      f"missing file: exit {result.returncode}, {result.stderr!r}")
result = view(good, os.path.join(work, "truncated.h5"))
check(result.returncode == 1, f"corrupt second report: exit {result.returncode}")
for args in ([], [good, "--port", "70000"], [good, "--bogus"]):
    result = subprocess.run([orrery, "view", *args], capture_output=True, text=True, timeout=20)
    check(result.returncode == 2, f"bad usage {args}: exit {result.returncode}")
result = subprocess.run([orrery, "view", "--help"], capture_output=True, text=True, timeout=20)
check(result.returncode == 0 and "--port" in result.stdout and "--host" in result.stdout, "--help")
check("--trace" in result.stdout and "--no-trace" in result.stdout, "--help names --trace and --no-trace")
# --trace must name an experiment with a trace (exit 1, one line); it excludes --no-trace (2).
result = view(good, "--trace", work)
check(result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1 and "--trace" in result.stderr,
      f"--trace without traces.otf2: exit {result.returncode}, {result.stderr!r}")
result = view(good, "--trace", work, "--no-trace")
check(result.returncode == 2, f"--trace with --no-trace: exit {result.returncode}")

# Groups of runs: two reports per group at least, each report once, not mixed with REPORT;
# a corrupt report in a group is exit 1 naming it.
good2 = os.path.join(work, "good2.h5")
subprocess.run([fixture, good2, "--callpaths", "30", "--locations", "4"], check=True)
for args, why in (
        (["--baseline", good, good2, "--candidate", good], "a group of one"),
        (["--baseline", good, good2], "no candidate group"),
        ([good, "--baseline", good, good2, "--candidate", good, good2], "REPORT and groups"),
        (["--baseline", good, good, "--candidate", good2, os.path.join(work, "x.h5")], "a report twice"),
        (["--baseline", good, good2, "--candidate", good, good2, "--min-change", "much"], "a bad --min-change")):
    result = view(*args)
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 2 and len(lines) >= 1 and "Traceback" not in result.stderr,
          f"groups, {why}: exit {result.returncode}, {result.stderr!r}")
result = view("--baseline", good, good2, "--candidate", os.path.join(work, "truncated.h5"), good2 + "x")
check(result.returncode == 1 and "truncated.h5" in result.stderr and len(result.stderr.strip().splitlines()) == 1,
      f"groups with a corrupt report: exit {result.returncode}, {result.stderr!r}")

# A good report: the printed address is on loopback and carries the token.
server = subprocess.Popen([orrery, "view", good, "--no-browser"], stdout=subprocess.PIPE, text=True)
try:
    url = None
    for _ in range(10):
        line = server.stdout.readline()
        match = re.search(r"http://\S+", line)
        if match:
            url = match.group(0)
            break
    check(url is not None and url.startswith("http://127.0.0.1:"), f"loopback address printed: {url}")
    token = re.search(r"token=([0-9a-f]{32})$", url or "")
    check(token is not None, f"32-hex-digit token in {url}")
    if url and token:
        base = url.split("?")[0]
        with urllib.request.urlopen(url, timeout=10) as page:
            check(page.status == 200 and b"<html" in page.read(), "page served with the token")
        try:
            urllib.request.urlopen(base + "api/header", timeout=10)
            check(False, "API without token refused")
        except urllib.error.HTTPError as e:
            check(e.code == 403, f"API without token: {e.code}")
        request = urllib.request.Request(base + "api/metrics", headers={"X-Orrery-Token": token.group(1)})
        with urllib.request.urlopen(request, timeout=10) as answer:
            check(b'"values"' in answer.read(), "API answers with the token header")
finally:
    server.terminate()
    try:
        status = server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        status = None
    check(status == 0, f"SIGTERM stops the server cleanly (exit {status})")

# SIGTERM the moment the address appears (before the server may listen): it
# must still stop. Test harnesses do exactly this; a lost signal left servers
# running forever.
stopped = 0
for attempt in range(20):
    server = subprocess.Popen([orrery, "view", good, "--no-browser", "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    for _ in range(10):
        if "http://" in server.stdout.readline():
            break
    server.terminate()
    try:
        stopped += server.wait(timeout=10) == 0
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
check(stopped == 20, f"SIGTERM right after the address stops the server: {stopped} of 20")

print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
