#!/usr/bin/env python3
"""Orrery's and Scalasca scout's wait states of one experiment, side by side.

    scout_compare.py REPORT.h5 SCOUT.cubex [--all] [--check TOLERANCE]

REPORT.h5 is orrery-analyze's report of an experiment, SCOUT.cubex what
Scalasca's scout wrote for the same trace (scripts/scout-compare.sh runs
both). For each pair of metrics that mean the same (PAIRS) and each rank it
prints both values, summed over all call paths and inclusive of the metric's
sub-metrics (Late Sender includes its wrong-order part on both sides), and
their relative difference. Rows where both are (almost) zero are left out
unless --all. --check: exit 1 if a pair differs by more than TOLERANCE
(relative to the larger value) and by more than 1 ms (1 byte, 1 instance).

Reads the CUBE4 archive itself (a tar of anchor.xml and per-metric .index and
.data files; the format is public), needs h5py for the report.
"""
import argparse
import struct
import sys
import tarfile
import xml.etree.ElementTree as ElementTree

# (Orrery metric, scout metrics summed, unit): the patterns both tools define
# the same way (docs/design.md §4, Scalasca's pattern documentation). Not
# here: init_completion, Orrery's wait in MPI_Init for the last process to
# start, where scout's mpi_init_completion is the time after the first one
# left (scout counts no waiting in MPI_Init); wait_at_neighbor, which scout
# 2.6 has no pattern for.
PAIRS = [
    ("late_sender", ["mpi_latesender"], "sec"),
    ("late_sender_wrong_order", ["mpi_latesender_wo"], "sec"),
    ("late_receiver", ["mpi_latereceiver"], "sec"),
    ("wait_at_barrier", ["mpi_barrier_wait"], "sec"),
    ("barrier_completion", ["mpi_barrier_completion"], "sec"),
    ("wait_at_nxn", ["mpi_wait_nxn"], "sec"),
    ("nxn_completion", ["mpi_nxn_completion"], "sec"),
    ("late_broadcast", ["mpi_latebroadcast"], "sec"),
    ("early_reduce", ["mpi_earlyreduce"], "sec"),
    ("early_scan", ["mpi_earlyscan"], "sec"),
    ("finalize_wait", ["mpi_finalize_wait"], "sec"),
    ("late_sender_count", ["mpi_sls_count", "mpi_cls_count"], "occ"),
    ("late_receiver_count", ["mpi_slr_count", "mpi_clr_count"], "occ"),
    ("bytes_sent", ["bytes_sent"], "bytes"),
    ("bytes_received", ["bytes_rcvd"], "bytes"),
    ("bytes_coll_out", ["bytes_cout"], "bytes"),
    ("bytes_coll_in", ["bytes_cin"], "bytes"),
]
NEGLIGIBLE = {"sec": 1e-3, "occ": 0.5, "bytes": 0.5}


class InputError(Exception):
    pass


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


# ---- CUBE4 (scout's report) ----------------------------------------------------

def read_index(raw, cnodes):
    """Cnode ids of the rows a metric's .data holds, in order, and the byte order."""
    header = b"CUBEX.INDEX"
    if not raw.startswith(header) or len(raw) < len(header) + 7:
        raise InputError("not a CUBE4 index file")
    at = len(header)
    (marker,) = struct.unpack_from("<I", raw, at)
    endian = "<" if marker == 1 else ">"
    index_type = raw[at + 6]
    if index_type == 0:  # dense: every cnode
        return list(range(cnodes)), endian
    (count,) = struct.unpack_from(endian + "I", raw, at + 7)
    return list(struct.unpack_from(endian + "%dI" % count, raw, at + 11)), endian


def cube_metric_values(archive, metric, cnodes, locations):
    """Per location: the metric's values summed over all call paths (zeros when
    scout wrote no data for it)."""
    if "%s.index" % metric["id"] not in archive:
        return [0.0] * locations
    rows, endian = read_index(archive["%s.index" % metric["id"]], cnodes)
    data = archive["%s.data" % metric["id"]]
    header = b"CUBEX.DATA"
    if not data.startswith(header):
        raise InputError("metric %s: not an uncompressed CUBE4 data file" % metric["name"])
    kind = {"FLOAT": "d", "DOUBLE": "d", "INTEGER": "q", "UINT64": "Q", "INT64": "q"}.get(metric["dtype"])
    if kind is None:
        raise InputError("metric %s: data type %s not supported" % (metric["name"], metric["dtype"]))
    count = len(rows) * locations
    values = struct.unpack_from(endian + "%d%s" % (count, kind), data, len(header))
    totals = [0.0] * locations
    for i, value in enumerate(values):
        totals[i % locations] += value
    return totals


def read_cube(path):
    """{metric name: [per rank]} inclusive of sub-metrics, for the metrics of PAIRS."""
    try:
        with tarfile.open(path) as tar:
            archive = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    except (OSError, tarfile.TarError) as error:
        raise InputError("%s: not a CUBE4 archive (%s)" % (path, str(error).splitlines()[-1].strip(" -")))
    if "anchor.xml" not in archive:
        raise InputError("%s: no anchor.xml" % path)
    root = ElementTree.fromstring(archive["anchor.xml"])
    metrics = {}

    def walk(element, ancestors):
        for child in element.findall("metric"):
            name = child.findtext("uniq_name")
            metrics[name] = {"id": child.get("id"), "name": name, "dtype": child.findtext("dtype"),
                             "type": child.get("type"), "ancestors": list(ancestors)}
            walk(child, ancestors + [name])

    walk(root.find("metrics"), [])
    cnodes = len(root.findall(".//program//cnode"))
    ranks = [int(group.findtext("rank")) for group in root.iter("locationgroup")
             for _ in group.findall("location")]
    own = {}
    for name, metric in metrics.items():
        if metric["type"] == "INCLUSIVE":
            continue  # stored inclusive along the call tree: not summable, not needed
        totals = cube_metric_values(archive, metric, cnodes, len(ranks))
        own[name] = [0.0] * (max(ranks) + 1)
        for column, rank in enumerate(ranks):
            own[name][rank] += totals[column]
    inclusive = {name: list(values) for name, values in own.items()}
    for name, values in own.items():
        for ancestor in metrics[name]["ancestors"]:
            if ancestor in inclusive:
                inclusive[ancestor] = [a + b for a, b in zip(inclusive[ancestor], values)]
    return inclusive


# ---- Orrery's report ------------------------------------------------------------

def read_report(path):
    """{metric name: [per rank]} inclusive of sub-metrics, summed over call paths."""
    try:
        import h5py
    except ImportError:
        raise InputError("h5py is needed to read %s (Debian: python3-h5py)" % path)
    try:
        report = h5py.File(path, "r")
    except OSError as error:
        raise InputError("%s: not an Orrery report (%s)" % (path, error))
    with report:
        metrics = report["metrics"][()]
        names = [text(m["name"]) for m in metrics]
        parents = [int(m["parent"]) for m in metrics]
        ranks = [int(location["rank"]) for location in report["locations"][()]]
        own = {}
        for name in names:
            totals = report["values"][name][()].sum(axis=0)
            own[name] = [0.0] * (max(ranks) + 1)
            for column, rank in enumerate(ranks):
                own[name][rank] += float(totals[column])
    inclusive = {name: list(values) for name, values in own.items()}
    for i, name in enumerate(names):
        parent = parents[i]
        while parent >= 0:
            inclusive[names[parent]] = [a + b for a, b in zip(inclusive[names[parent]], own[name])]
            parent = parents[parent]
    return inclusive


# ---- comparison -----------------------------------------------------------------

def relative(a, b):
    larger = max(abs(a), abs(b))
    return 0.0 if larger == 0 else (b - a) / larger


def compare(orrery, scout, show_all):
    """Rows (metric, rank, orrery, scout, relative difference, beyond negligible)."""
    rows = []
    for name, scout_names, unit in PAIRS:
        if name not in orrery or not all(s in scout for s in scout_names):
            continue
        ranks = len(orrery[name])
        for rank in range(ranks):
            mine = orrery[name][rank]
            theirs = sum(scout[s][rank] if rank < len(scout[s]) else 0.0 for s in scout_names)
            significant = max(abs(mine), abs(theirs)) > NEGLIGIBLE[unit]
            if significant or show_all:
                rows.append((name, unit, rank, mine, theirs, relative(mine, theirs),
                             abs(mine - theirs) > NEGLIGIBLE[unit]))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("cube")
    parser.add_argument("--all", action="store_true", help="also rows where both values are ~0")
    parser.add_argument("--check", type=float, metavar="TOLERANCE",
                        help="exit 1 if a pair differs by more than this relative difference")
    args = parser.parse_args()
    try:
        rows = compare(read_report(args.report), read_cube(args.cube), args.all)
    except (InputError, KeyError, struct.error) as error:
        print("scout_compare: %s" % error, file=sys.stderr)
        return 1
    print("%-24s %4s %14s %14s %9s" % ("metric", "rank", "orrery", "scout", "rel.diff"))
    failed = 0
    for name, unit, rank, mine, theirs, diff, beyond in rows:
        shown = "%14.6f %14.6f" % (mine, theirs) if unit == "sec" else "%14d %14d" % (mine, theirs)
        print("%-24s %4d %s %+8.2f%%" % (name, rank, shown, 100 * diff))
        if args.check is not None and beyond and abs(diff) > args.check:
            failed += 1
    if not rows:
        print("(no wait state, message or collective volume above the noise on either side)")
    if failed:
        print("scout_compare: %d values differ by more than %g" % (failed, args.check), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
