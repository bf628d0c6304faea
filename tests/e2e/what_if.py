#!/usr/bin/env python3
"""The what-if replay and the POP efficiencies end to end (issue 11).

A latency-bound ping-pong (e2e_what_if_pingpong pingpong N US on 2 ranks) is
measured and analyzed as it ran, on the ideal network and on two models that
differ only in latency. On the model every message of the chain costs L, so
doubling L from 100 us to 200 us must add N x 2 x 100 us to the predicted run
time; the ideal network cannot be slower than the run itself. The what-if
cubes are ordinary reports (orrery stat, info). Then an imbalanced workload
(rank 0 sleeps five times as long before each barrier, 4 ranks) must have
the load balance the program observed itself: mean work / max work (0.4).

    what_if.py
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py

ITERATIONS, PAUSE_US = 200, 500


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, expect=0, env=None):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    if result.returncode != expect:
        fail("%s: exit %d (expected %d)\n%s%s" % (" ".join(command), result.returncode, expect,
                                                  result.stdout, result.stderr))
    return result


def efficiencies(report):
    with h5py.File(report, "r") as f:
        if "efficiency" not in f:
            fail(report + " has no /efficiency")
        return {(n.decode() if isinstance(n, bytes) else n): float(v)
                for n, v in zip(f["efficiency"]["name"], f["efficiency"]["value"])}


def check_identities(report):
    e = efficiencies(report)
    names = {"parallel_efficiency", "load_balance", "communication_efficiency",
             "serialisation_efficiency", "transfer_efficiency"}
    if set(e) != names:
        fail("%s: efficiency rows %s" % (report, sorted(e)))
    for name, value in e.items():
        if not 0 < value <= 1 + 1e-9:
            fail("%s: %s = %r is not in (0, 1]" % (report, name, value))
    if abs(e["parallel_efficiency"] - e["load_balance"] * e["communication_efficiency"]) > 1e-9 or \
            abs(e["communication_efficiency"] -
                e["serialisation_efficiency"] * e["transfer_efficiency"]) > 1e-9:
        fail("%s: the efficiencies do not multiply up: %s" % (report, e))
    return e


def predicted(report):
    with h5py.File(report, "r") as f:
        model = f.attrs["what_if"]
        return (model.decode() if isinstance(model, bytes) else str(model)), \
            float(f.attrs["predicted_runtime"])


def main():
    build = os.environ["ORRERY_BUILD_DIR"]
    binary = os.path.join(build, "bin")
    work = tempfile.mkdtemp(prefix="orrery-e2e-what-if-")
    env = dict(os.environ, OMPI_MCA_mpi_yield_when_idle="1")
    mpirun = ["mpirun", "--oversubscribe", "-np"]

    exp, observed = os.path.join(work, "pingpong"), os.path.join(work, "observed-pingpong")
    os.makedirs(observed)
    run([os.path.join(binary, "orrery"), "run", "-o", exp, "--"] + mpirun +
        ["2", os.path.join(binary, "e2e_what_if_pingpong"), observed, "pingpong",
         str(ITERATIONS), str(PAUSE_US)], env=env)
    analyze = mpirun + ["2", os.path.join(binary, "orrery-analyze"), exp]
    summary = run(analyze, env=env).stdout
    if "Efficiencies (POP)" not in summary:
        fail("the analyzer's summary has no efficiencies:\n" + summary)
    check_identities(os.path.join(exp, "report.h5"))

    reports = {}
    for name, model in [("ideal", "ideal"), ("l1", "latency=100us,bandwidth=1GB/s"),
                        ("l2", "latency=200us,bandwidth=1GB/s")]:
        reports[name] = os.path.join(work, name + ".h5")
        out = run(analyze + ["--what-if", model, "-o", reports[name]], env=env).stdout
        line = [l for l in out.splitlines() if l.startswith("What if")]
        if not line:
            fail("no 'What if' line in the summary:\n" + out)
        print(line[0])
        measured = float(line[0].split("measured ")[1].split()[0])
        text, runtime = predicted(reports[name])
        if text != model:
            fail("what_if attribute %r, expected %r" % (text, model))
        if name == "ideal" and runtime > measured:
            fail("the ideal network predicts %.6f s, more than the measured %.6f s"
                 % (runtime, measured))
        check_identities(reports[name])
        run([os.path.join(binary, "orrery"), "stat", reports[name], "--top", "3"])
    growth = predicted(reports["l2"])[1] - predicted(reports["l1"])[1]
    expected = ITERATIONS * 2 * 100e-6
    print("doubling the latency adds %.6f s (model: %.6f s)" % (growth, expected))
    if abs(growth - expected) > 0.01 * expected:
        fail("doubling the latency added %.6f s, expected %.6f s" % (growth, expected))
    info = run([os.path.join(binary, "orrery"), "info", reports["l1"]]).stdout
    if "What if" not in info or "parallel_efficiency" not in info:
        fail("orrery info does not show the prediction and efficiencies:\n" + info)
    info_json = json.loads(run([os.path.join(binary, "orrery"), "info", reports["l1"],
                                "--format", "json"]).stdout)
    if info_json.get("what_if") != "latency=100us,bandwidth=1GB/s" or \
            "load_balance" not in info_json.get("efficiency", {}):
        fail("orrery info --format json: %s" % {k: info_json.get(k) for k in ("what_if", "efficiency")})
    exported = json.loads(run([os.path.join(binary, "orrery"), "export", reports["l1"],
                               "--format", "json", "-m", "time"]).stdout)
    if exported["attributes"].get("what_if") != "latency=100us,bandwidth=1GB/s" or \
            len(exported.get("efficiency", [])) != 5:
        fail("orrery export --format json lacks the prediction or the efficiencies")
    bad = run(analyze + ["--what-if", "latency=5,bandwidth=1GB/s"], expect=2, env=env)
    if "unit" not in bad.stderr:
        fail("a latency without unit: %r" % bad.stderr)

    exp, observed = os.path.join(work, "imbalance"), os.path.join(work, "observed-imbalance")
    os.makedirs(observed)
    run([os.path.join(binary, "orrery"), "run", "-o", exp, "--"] + mpirun +
        ["4", os.path.join(binary, "e2e_what_if_pingpong"), observed, "imbalance", "10", "10000"],
        env=env)
    run(mpirun + ["4", os.path.join(binary, "orrery-analyze"), exp], env=env)
    works = []
    for r in range(4):
        with open(os.path.join(observed, "rank%d.txt" % r)) as f:
            works.append(dict(line.split() for line in f)["work"])
    works = [float(w) for w in works]
    expected_balance = sum(works) / len(works) / max(works)
    balance = efficiencies(os.path.join(exp, "report.h5"))["load_balance"]
    print("load balance %.4f, program observed %.4f" % (balance, expected_balance))
    if abs(balance - expected_balance) > 0.05:
        fail("load balance %.4f, the program observed %.4f" % (balance, expected_balance))
    print("ok")


if __name__ == "__main__":
    main()
