"""Reads an OTF2 archive through `otf2-print` (the reference reader shipped
with OTF2), so the tests check the trace with a tool that is not Orrery's.

Event lines of otf2-print look like
    ENTER        0    1234567  Region: "MPI_Send" <5>
i.e. event kind, location id, timestamp, attributes.
"""
import collections
import re
import subprocess

_EVENT = re.compile(r"^([A-Z][A-Z0-9_]*)\s+(\d+)\s+(\d+)\s*(.*)$")
_REGION = re.compile(r'Region: "([^"]*)"')


class Trace:
    """Event counts per location: kinds[loc][KIND], enters/leaves[loc][region]."""

    def __init__(self):
        self.kinds = collections.defaultdict(collections.Counter)
        self.enters = collections.defaultdict(collections.Counter)
        self.leaves = collections.defaultdict(collections.Counter)
        self.events = collections.Counter()
        self.warnings = []

    def locations(self):
        return sorted(self.events)


def run_otf2_print(anchor, *options, timeout=120):
    """Runs otf2-print; returns (stdout, stderr); raises on a non-zero exit."""
    done = subprocess.run(["otf2-print", *options, anchor], capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"otf2-print {' '.join(options)} {anchor} failed with "
                             f"{done.returncode}: {done.stderr.strip()[:2000]}")
    return done.stdout, done.stderr


def read_trace(anchor):
    """Counts the events of every location of the archive."""
    stdout, stderr = run_otf2_print(anchor)
    trace = Trace()
    trace.warnings = [line for line in stderr.splitlines() if line.strip()]
    in_events = False
    for line in stdout.splitlines():
        if line.startswith("=== Events"):
            in_events = True
            continue
        if not in_events:
            continue
        match = _EVENT.match(line)
        if not match:
            continue
        kind, location = match.group(1), int(match.group(2))
        trace.kinds[location][kind] += 1
        trace.events[location] += 1
        if kind in ("ENTER", "LEAVE"):
            region = _REGION.search(match.group(4))
            name = region.group(1) if region else "?"
            (trace.enters if kind == "ENTER" else trace.leaves)[location][name] += 1
    return trace


def region_definitions(anchor):
    """Global region definitions: {name: {"file": str, "line": int, "paradigm": str}}."""
    stdout, _ = run_otf2_print(anchor, "-G")
    regions = {}
    for line in stdout.splitlines():
        if not line.startswith("REGION "):
            continue
        name = re.search(r'Name: "([^"]*)"', line)
        if not name:
            continue
        source = re.search(r'File: "([^"]*)"', line)
        begin = re.search(r"Begin(?: Line)?: (\d+)", line)
        paradigm = re.search(r"Paradigm: (\w+)", line)
        regions[name.group(1)] = {
            "file": source.group(1) if source else "",
            "line": int(begin.group(1)) if begin else 0,
            "paradigm": paradigm.group(1) if paradigm else "",
        }
    return regions
