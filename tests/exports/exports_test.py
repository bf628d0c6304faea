#!/usr/bin/env python3
"""`orrery export` to CUBE4, XML and Perfetto on a real experiment.

    exports_test.py ORRERY ORRERY_ANALYZE PROGRAM SOURCE_DIR

Measures PROGRAM (the stencil example) on 2 ranks and analyzes it, then:
cube     - the .cubex is a tar with anchor.xml (well-formed; metric, call and
           system trees of the report's sizes, descriptions included) and per
           metric an index and data file whose values equal the report's;
xml      - the XML export validates against docs/orrery-report.xsd (xmllint,
           when installed; else it must be well-formed) and its values equal
           the report's;
perfetto - the Chrome trace-event JSON parses; per rank its complete events
           equal the trace's Enter events, its flow starts the trace's sends
           and its flow ends the trace's receives (counted with otf2-print);
           a window holds only events inside it;
errors   - bad usage exits 2, bad input exits 1, with one line each;
scout_compare - scripts/scout_compare.py's CUBE4 reader gives the report's
           values from the cube export.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter

import h5py
import numpy as np

RANKS = 2


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, expect=0):
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=180)
    if result.returncode != expect:
        print(result.stdout[-3000:] + result.stderr[-3000:])
        fail("%s exited with %d, expected %d" % (" ".join(command[:4]), result.returncode, expect))
    return result


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def read_report(path):
    with h5py.File(path, "r") as f:
        metrics = [text(m["name"]) for m in f["metrics"][:]]
        values = {m: f["values/" + m][:] for m in metrics}
        return {"metrics": metrics, "descriptions": [text(m["description"]) for m in f["metrics"][:]],
                "callpaths": len(f["callpaths"]), "locations": len(f["locations"]),
                "values": values}


def check_cube(orrery, report_path, work):
    report = read_report(report_path)
    out = os.path.join(work, "out.cubex")
    run([orrery, "export", report_path, "--format", "cube", "-o", out])
    with tarfile.open(out) as tar:
        names = tar.getnames()
        anchor = tar.extractfile("anchor.xml").read()
        files = {name: tar.extractfile(name).read() for name in names if name != "anchor.xml"}
    if shutil.which("xmllint"):
        path = os.path.join(work, "anchor.xml")
        with open(path, "wb") as f:
            f.write(anchor)
        run(["xmllint", "--noout", path])
    root = ET.fromstring(anchor)
    metrics = root.findall(".//metric")
    if [m.findtext("uniq_name") for m in sorted(metrics, key=lambda m: int(m.get("id")))] != \
            report["metrics"]:
        fail("anchor.xml metrics differ from the report's")
    described = [m for m in metrics if m.findtext("descr")]
    if len(described) != sum(1 for d in report["descriptions"] if d):
        fail("anchor.xml lost metric descriptions")
    cnodes = root.findall(".//cnode")
    locations = root.findall(".//location")
    if len(cnodes) != report["callpaths"] or len(locations) != report["locations"]:
        fail("anchor.xml has %d cnodes and %d locations; the report %d and %d"
             % (len(cnodes), len(locations), report["callpaths"], report["locations"]))
    if sorted(int(l.get("Id")) for l in locations) != list(range(report["locations"])):
        fail("anchor.xml location Ids are not 0..L-1 (CubeLib spells the attribute 'Id')")
    if len(root.findall(".//locationgroup")) != RANKS:
        fail("anchor.xml does not have one location group per rank")
    for row, metric in enumerate(report["metrics"]):
        index = files["%d.index" % row]
        if index[:11] != b"CUBEX.INDEX":
            fail("%d.index header %r" % (row, index[:11]))
        endian, version, kind, count = struct.unpack("<iHBI", index[11:22])
        ids = struct.unpack("<%dI" % count, index[22:22 + 4 * count])
        if endian != 1 or kind != 1 or count != report["callpaths"] or list(ids) != sorted(ids):
            fail("%d.index: endian %d, type %d, %d ids" % (row, endian, kind, count))
        data = files["%d.data" % row]
        if data[:10] != b"CUBEX.DATA":
            fail("%d.data header %r" % (row, data[:10]))
        values = np.frombuffer(data[10:], dtype="<f8").reshape(count, report["locations"])
        expected = report["values"][metric][list(ids)]
        if not np.array_equal(values, expected):
            fail("%s: CUBE values differ from the report's" % metric)
    seconds = sum(float(report["values"][m].sum()) for m in report["metrics"]
                  if m in ("time", "execution", "mpi", "overhead") or m.startswith("mpi_"))
    totals = {"time": seconds, "visits": float(report["values"]["visits"].sum())}
    print("cube: %d metrics, %d cnodes, %d locations; sums equal (time %.6f s, visits %d)"
          % (len(metrics), len(cnodes), len(locations), totals["time"], totals["visits"]))


def check_scout_compare_reader(report_path, cube_path, source_dir):
    """scripts/scout_compare.py (the Orrery/Scalasca comparison, run by hand
    with scout) reads a CUBE4 archive itself: on Orrery's own export it must
    give the report's per-rank totals, sub-metrics included, and compare()
    must pair and sum them into zero differences."""
    sys.path.insert(0, os.path.join(source_dir, "scripts"))
    import scout_compare
    orrery = scout_compare.read_report(report_path)
    cube = scout_compare.read_cube(cube_path)
    if sorted(cube) != sorted(orrery):
        fail("scout_compare read metrics %s from the CUBE4 export" % sorted(set(cube) ^ set(orrery)))
    for name, per_rank in orrery.items():
        if not np.allclose(cube[name], per_rank, rtol=1e-12, atol=0):
            fail("scout_compare: %s per rank %s from the CUBE4 export, %s from the report"
                 % (name, cube[name], per_rank))
    renamed = {}
    for name, scout_names, _ in scout_compare.PAIRS:
        if name in orrery:
            renamed[scout_names[0]] = cube[name]
            for other in scout_names[1:]:
                renamed[other] = [0.0] * len(cube[name])
    rows = scout_compare.compare(orrery, renamed, show_all=True)
    if not rows or any(row[5] != 0 or row[6] for row in rows):
        fail("scout_compare.compare on equal values: %s" % [r for r in rows if r[5] or r[6]][:3])
    print("scout_compare: read the CUBE4 export like the report (%d metrics), %d pairs compared"
          % (len(cube), len(rows)))


def check_xml(orrery, report_path, work, source_dir):
    report = read_report(report_path)
    out = os.path.join(work, "out.xml")
    run([orrery, "export", report_path, "--format", "xml", "-o", out])
    schema = os.path.join(source_dir, "docs", "orrery-report.xsd")
    if shutil.which("xmllint"):
        run(["xmllint", "--noout", "--schema", schema, out])
        print("xml: valid against %s" % schema)
    else:
        print("xml: xmllint missing (libxml2-utils); checked well-formed only")
    root = ET.parse(out).getroot()
    if [m.get("name") for m in root.find("metrics")] != report["metrics"]:
        fail("XML metrics differ from the report's")
    for block in root.findall("values"):
        metric = block.get("metric")
        matrix = np.zeros((report["callpaths"], report["locations"]))
        for row in block.findall("row"):
            matrix[int(row.get("callpath"))] = [float(v) for v in row.text.split()]
        if not np.array_equal(matrix, report["values"][metric]):
            fail("XML values of %s differ from the report's" % metric)
    print("xml: %d metrics, values equal the report's" % len(root.findall("values")))


def otf2_counts(experiment):
    """Per location: Enter events, sends (MpiSend, MpiIsend), receives (MpiRecv, MpiIrecv)."""
    anchor = os.path.join(experiment, "traces.otf2")
    output = run(["otf2-print", anchor]).stdout
    counts = {"enter": Counter(), "send": Counter(), "recv": Counter()}
    kinds = {"ENTER": "enter", "MPI_SEND": "send", "MPI_ISEND": "send", "MPI_RECV": "recv",
             "MPI_IRECV": "recv"}
    for line in output.splitlines():
        match = re.match(r"^([A-Z_]+)\s+(\d+)\s+\d+", line)
        if match and match.group(1) in kinds:
            counts[kinds[match.group(1)]][int(match.group(2))] += 1
    return counts


def perfetto_counts(path):
    with open(path) as f:
        doc = json.load(f)
    counts = {"X": Counter(), "s": Counter(), "f": Counter()}
    for event in doc["traceEvents"]:
        if event["ph"] in counts:
            counts[event["ph"]][event["pid"]] += 1
    return doc, counts


def check_perfetto(orrery, experiment, work):
    if shutil.which("otf2-print") is None:
        fail("otf2-print (otf2-tools) is needed to count the trace's events")
    out = os.path.join(work, "trace.json")
    run([orrery, "export", experiment, "--format", "perfetto", "-o", out])
    doc, mine = perfetto_counts(out)
    trace = otf2_counts(experiment)
    locations = sorted(trace["enter"])
    if len(locations) != RANKS:
        fail("otf2-print shows locations %s" % locations)
    for rank, location in enumerate(locations):
        for ph, kind in (("X", "enter"), ("s", "send"), ("f", "recv")):
            if mine[ph][rank] != trace[kind][location]:
                fail("rank %d: %d '%s' events, the trace has %d %s events"
                     % (rank, mine[ph][rank], ph, trace[kind][location], kind))
    names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    if sorted(names) != list(range(RANKS)):
        fail("process names %s" % names)
    print("perfetto: per rank slices %s, flows out %s, flows in %s (equal to the trace's)"
          % (dict(mine["X"]), dict(mine["s"]), dict(mine["f"])))
    # A window: every slice clipped into it, fewer slices than the whole trace.
    ends = [e["ts"] + e["dur"] for e in doc["traceEvents"] if e["ph"] == "X"]
    middle = max(ends) / 2e6
    window = os.path.join(work, "window.json")
    start, stop = middle * 0.9, middle * 1.1
    run([orrery, "export", experiment, "--format", "perfetto", "--from", repr(start), "--to",
         repr(stop), "-o", window])
    wdoc, wcounts = perfetto_counts(window)
    slices = [e for e in wdoc["traceEvents"] if e["ph"] in ("X", "s", "f")]
    tolerance = 0.001  # microseconds printed with three decimals
    for event in slices:
        end = event["ts"] + event.get("dur", 0)
        if event["ts"] < start * 1e6 - tolerance or end > stop * 1e6 + tolerance:
            fail("window event outside [%g, %g] s: %s" % (start, stop, event))
    if not 0 < sum(wcounts["X"].values()) < sum(mine["X"].values()):
        fail("the window holds %d slices of %d" % (sum(wcounts["X"].values()),
                                                   sum(mine["X"].values())))
    print("perfetto window [%.4f, %.4f] s: %d slices, %d flows" % (
        start, stop, sum(wcounts["X"].values()), sum(wcounts["s"].values())))


def check_errors(orrery, report_path, experiment, work):
    run([orrery, "export", report_path, "--format", "cube"], expect=2)
    run([orrery, "export", report_path, "--format", "pdf"], expect=2)
    run([orrery, "export", experiment, "--format", "perfetto", "--from", "2", "--to", "1"], expect=2)
    run([orrery, "export", os.path.join(work, "missing"), "--format", "perfetto"], expect=1)
    run([orrery, "export", os.path.join(work, "missing.h5"), "--format", "cube", "-o",
         os.path.join(work, "x.cubex")], expect=1)
    run([orrery, "export", report_path, "--format", "xml", "-o", "/nonexistent/dir/x.xml"], expect=1)
    print("errors: exit statuses as documented")


def main():
    orrery, analyze, program, source_dir = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix="orrery_exports_")
    try:
        experiment = os.path.join(work, "exp")
        run([orrery, "run", "-o", experiment, "--", "mpirun", "-np", str(RANKS), program,
             "--size", "48", "--iterations", "12", "--quiet"])
        run(["mpirun", "-np", str(RANKS), analyze, experiment])
        report = os.path.join(experiment, "report.h5")
        check_cube(orrery, report, work)
        check_scout_compare_reader(report, os.path.join(work, "out.cubex"), source_dir)
        check_xml(orrery, report, work, source_dir)
        check_perfetto(orrery, experiment, work)
        check_errors(orrery, report, experiment, work)
        print("PASS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
