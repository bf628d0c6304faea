#!/usr/bin/env python3
"""Test-only trace reader for liborrery-measure's tests.

Reads an experiment with `otf2-print` (which must succeed without an error),
checks the invariants every trace must satisfy, and then the expectations the
test program wrote about itself (EXPECT files, one per rank):

  <KIND> <count|present|absent> <EVENT> [Attr=value ...]   events on this rank
  counted <MPI_Function> <n>        measurement.json: calls counted, not traced
  other_thread_calls_at_least <n>   measurement.json: calls made on other threads
  region_file <name> <file suffix>  the region's definition names that source file
  no_region <name>                  no region of that name is defined
  parent <name> <parent|@root>      every Enter of <name> is directly inside <parent>
                                    (@root: the program root region)
  enter_before <a> <b>              the first Enter of <a> comes before the first of <b>

Every rank's events are nested in one program root region (paradigm
MEASUREMENT_SYSTEM, role ARTIFICIAL, named after the executable): its Enter is
the rank's first event, its Leave the last, and no other region is top-level.

Attributes are otf2-print's (Receiver, Sender, Tag, Length, Region, Operation,
Root, Sent, Received, Request) plus CommMembers (world ranks of the event's
communicator, comma-separated) and CommName.
"""
import collections
import json
import re
import subprocess
import sys
from pathlib import Path

ATTR = re.compile(r'(\w+): ("[^"]*" <\d+>|\d+ \("[^"]*" <\d+>\)|[^,]*)')
ROLES = {  # region name -> role the trace conventions require
    "MPI_Send": "POINT2POINT", "MPI_Recv": "POINT2POINT", "MPI_Wait": "POINT2POINT",
    "MPI_Barrier": "BARRIER", "MPI_Ibarrier": "BARRIER", "MPI_Bcast": "COLL_ONE2ALL",
    "MPI_Scatter": "COLL_ONE2ALL", "MPI_Gather": "COLL_ALL2ONE", "MPI_Reduce": "COLL_ALL2ONE",
    "MPI_Allreduce": "COLL_ALL2ALL", "MPI_Alltoall": "COLL_ALL2ALL", "MPI_Scan": "COLL_OTHER",
    "MPI_Exscan": "COLL_OTHER", "MPI_Put": "RMA", "MPI_Win_fence": "RMA",
    "MPI_File_write_at": "FILE_IO", "MPI_Init": "FUNCTION", "MPI_Finalize": "FUNCTION",
    "MPI_Comm_split": "FUNCTION", "ORRERY_FLUSH": "ARTIFICIAL",
}


# Collective operations Scalasca 2.6's reader knows (docs/trace-conventions.md,
# "Scalasca compatibility"): it aborts on any other, such as CREATE_HANDLE.
SCALASCA_COLLECTIVE_OPS = {
    "BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER", "ALLGATHERV",
    "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE", "REDUCE_SCATTER",
    "REDUCE_SCATTER_BLOCK", "SCAN", "EXSCAN",
}


class Failure(Exception):
    pass


def check_scalasca_conventions(rank, evs, regions):
    """What Scalasca 2.6's scout needs besides OTF2 itself: every MPI region
    names the source file "MPI" (scout classifies regions by it), collectives
    use only the operations it knows, and the program name of ProgramBegin is
    the name of the program root region (scout looks the region up by it)."""
    for name, region in regions.items():
        if region["paradigm"] == "MPI" and region["file"] != "MPI":
            raise Failure(f"MPI region {name} names source file {region['file']!r}, not \"MPI\"")
    for e in evs:
        if e["Event"] in ("MPI_COLLECTIVE_END", "NON_BLOCKING_COLLECTIVE_COMPLETE") \
                and e.get("Operation") not in SCALASCA_COLLECTIVE_OPS:
            raise Failure(f"rank {rank}: collective operation {e.get('Operation')} unknown to Scalasca: {e}")
    root = next(e["Region"] for e in evs if e["Event"] == "ENTER")
    if evs[0].get("Name") != root:
        raise Failure(f"rank {rank}: ProgramBegin names program {evs[0].get('Name')!r}, the root region is {root!r}")


def check_program_root(rank, evs, regions, program=None):
    """The rank's events form one tree under the program root region; returns its name.
    ProgramBegin/ProgramEnd bracket it, at its Enter's and Leave's timestamps."""
    if len(evs) < 2 or evs[0]["Event"] != "PROGRAM_BEGIN" or evs[-1]["Event"] != "PROGRAM_END":
        raise Failure(f"rank {rank}: events must start with PROGRAM_BEGIN and end with PROGRAM_END")
    if evs[0]["Time"] != evs[1]["Time"] or evs[-1]["Time"] != evs[-2]["Time"]:
        raise Failure(f"rank {rank}: PROGRAM_BEGIN/END are not at the root's Enter/Leave time")
    evs = evs[1:-1]
    if not evs or evs[0]["Event"] != "ENTER" or evs[-1]["Event"] != "LEAVE":
        raise Failure(f"rank {rank}: events must start with the root's ENTER and end with its LEAVE")
    root = evs[0]["Region"]
    definition = regions.get(root, {})
    if definition.get("paradigm") != "MEASUREMENT_SYSTEM" or definition.get("role") != "ARTIFICIAL":
        raise Failure(f"rank {rank}: first region {root} is not the program root: {definition}")
    if program is not None and root != program:
        raise Failure(f"rank {rank}: program root is named {root}, expected {program}")
    if evs[-1]["Region"] != root:
        raise Failure(f"rank {rank}: last event leaves {evs[-1]['Region']}, not the program root {root}")
    depth = 0
    for i, e in enumerate(evs):
        depth += {"ENTER": 1, "LEAVE": -1}.get(e["Event"], 0)
        if depth == 0 and i != len(evs) - 1:
            raise Failure(f"rank {rank}: event {i} ({e['Event']} {e.get('Region')}) is outside the program root")
    return root


def otf2_print(args):
    proc = subprocess.run(["otf2-print", *args], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or "error" in proc.stderr.lower():
        raise Failure(f"otf2-print {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    return proc.stdout


def parse_attrs(text):
    attrs = {}
    for key, value in ATTR.findall(text):
        value = value.strip()
        m = re.match(r'^"([^"]*)" <(\d+)>$', value)
        if m:
            attrs[key] = m.group(1)
            attrs[key + "Id"] = m.group(2)
            continue
        m = re.match(r'^(\d+) \(', value)
        attrs[key] = m.group(1) if m else value
    return attrs


def read_definitions(anchor):
    comms, groups, regions = {}, {}, {}
    for line in otf2_print(["-G", anchor]).splitlines():
        fields = line.split(None, 2)
        if len(fields) < 3:
            continue
        kind, ident, rest = fields
        if kind == "GROUP":
            m = re.search(r"Type: (\w+).*?(\d+) Members:?(.*)$", rest)
            members = [int(x) for x in re.findall(r'(\d+) \("', m.group(3))] if m else []
            if m and m.group(1) == "COMM_LOCATIONS":
                members = [int(x) for x in re.findall(r"<(\d+)>", m.group(3))]
            groups[ident] = {"type": m.group(1) if m else "", "members": members}
        elif kind == "COMM":
            m = re.search(r'Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>', rest)
            comms[ident] = {"name": m.group(1), "group": m.group(2)}
        elif kind == "REGION":
            m = re.search(r'Name: "([^"]*)".*Role: (\w+), Paradigm: (\w+).*File: (?:"([^"]*)"|UNDEFINED).*Begin: (\d+)', rest)
            regions[m.group(1)] = {"role": m.group(2), "paradigm": m.group(3), "file": m.group(4) or "",
                                   "line": int(m.group(5))}
    return comms, groups, regions


def read_events(anchor, comms, groups):
    events = collections.defaultdict(list)
    for line in otf2_print([anchor]).splitlines():
        fields = line.split(None, 3)
        if len(fields) < 3 or not fields[1].isdigit() or not fields[2].isdigit():
            continue
        attrs = parse_attrs(fields[3]) if len(fields) > 3 else {}
        attrs["Event"] = fields[0]
        attrs["Time"] = int(fields[2])
        if "CommunicatorId" in attrs:
            comm = comms[attrs["CommunicatorId"]]
            group = groups[comm["group"]]
            attrs["CommName"] = comm["name"]
            attrs["CommMembers"] = ",".join(map(str, group["members"]))
            attrs["_members"] = group["members"]
        events[int(fields[1])].append(attrs)
    return events


def check_invariants(events, comms, groups, regions, nranks, program=None):
    if sorted(events) != list(range(nranks)):
        raise Failure(f"trace has locations {sorted(events)}, expected 0..{nranks - 1}")
    for rank, evs in events.items():
        check_program_root(rank, evs, regions, program)
        check_scalasca_conventions(rank, evs, regions)
    for name, role in ROLES.items():
        if name in regions and regions[name]["role"] != role:
            raise Failure(f"region {name} has role {regions[name]['role']}, expected {role}")
    messages = collections.Counter()
    for rank, evs in events.items():
        stack, last, live = [], 0, {}
        for e in evs:
            if e["Time"] < last:
                raise Failure(f"rank {rank}: timestamps go backwards at {e}")
            last = e["Time"]
            kind = e["Event"]
            if kind == "ENTER":
                stack.append(e["Region"])
            elif kind == "LEAVE":
                if not stack or stack.pop() != e["Region"]:
                    raise Failure(f"rank {rank}: LEAVE {e['Region']} does not match the open region")
            elif kind in ("MPI_ISEND", "MPI_IRECV_REQUEST", "NON_BLOCKING_COLLECTIVE_REQUEST"):
                live[e["Request"]] = kind
            elif kind in ("MPI_ISEND_COMPLETE", "MPI_IRECV", "NON_BLOCKING_COLLECTIVE_COMPLETE",
                          "MPI_REQUEST_CANCELLED"):
                if live.pop(e["Request"], None) is None:
                    raise Failure(f"rank {rank}: {kind} of request {e['Request']} that was never posted")
            if kind in ("MPI_SEND", "MPI_ISEND"):
                members = e["_members"] or [rank]
                messages[(e["CommunicatorId"], rank, members[int(e["Receiver"])], e["Tag"])] += 1
            elif kind in ("MPI_RECV", "MPI_IRECV"):
                members = e["_members"] or [rank]
                messages[(e["CommunicatorId"], members[int(e["Sender"])], rank, e["Tag"])] -= 1
        if stack:
            raise Failure(f"rank {rank}: regions left open at the end: {stack}")
        incomplete = list(live)  # the test programs never free an active request
        if incomplete:
            raise Failure(f"rank {rank}: requests posted but never completed: {incomplete}")
    unmatched = {k: v for k, v in messages.items() if v != 0}
    if unmatched:
        raise Failure(f"sends and receives do not match (comm, from, to, tag: surplus): {unmatched}")


def check_parent(rank, evs, name, parent):
    stack, seen = [], 0
    for e in evs:
        if e["Event"] == "ENTER":
            if e["Region"] == name:
                seen += 1
                root = next(x["Region"] for x in evs if x["Event"] == "ENTER")
                directly = len(stack) == 1 and stack[0] == root if parent == "@root" \
                    else stack[-1:] == [parent]
                if not directly:
                    raise Failure(f"rank {rank}: {name} entered inside {stack}, expected directly in {parent}")
            stack.append(e["Region"])
        elif e["Event"] == "LEAVE":
            stack.pop()
    if seen == 0:
        raise Failure(f"rank {rank}: {name} never entered")


def check_expectations(expect_dir, events, regions, measurement):
    checked = 0
    for path in sorted(Path(expect_dir).glob("expect.*")):
        rank = int(path.suffix[1:])
        for line in path.read_text().splitlines():
            words = line.split()
            if not words:
                continue
            checked += 1
            if words[0] == "counted":
                per_rank = measurement["statistics"]["per_rank"][rank]["counted_calls"]
                got = per_rank.get(words[1], 0)
                if got != int(words[2]):
                    raise Failure(f"rank {rank}: {words[1]} counted {got} times, program made {words[2]} such calls")
                continue
            if words[0] == "region_file":
                region = regions.get(words[1])
                if region is None or not region["file"].endswith(words[2]) or region["line"] <= 0:
                    raise Failure(f"region {words[1]} should name {words[2]} and a line: {region}")
                continue
            if words[0] == "other_thread_calls_at_least":
                got = measurement["statistics"]["per_rank"][rank]["other_thread_calls"]
                if got < int(words[1]):
                    raise Failure(f"rank {rank}: {got} calls from other threads counted, program made {words[1]}")
                continue
            if words[0] == "parent":
                check_parent(rank, events[rank], words[1], words[2])
                continue
            if words[0] == "enter_before":
                first = {}
                for i, e in enumerate(events[rank]):
                    if e["Event"] == "ENTER":
                        first.setdefault(e["Region"], i)
                if words[1] not in first or words[2] not in first or first[words[1]] > first[words[2]]:
                    raise Failure(f"rank {rank}: first ENTER of {words[1]} (event {first.get(words[1])}) "
                                  f"should come before that of {words[2]} (event {first.get(words[2])})")
                continue
            if words[0] == "no_region":
                if words[1] in regions:
                    raise Failure(f"region {words[1]} should have been filtered out")
                continue
            mode, kind = words[0], words[1]
            wanted = dict(w.split("=", 1) for w in words[2:] if not w.startswith("count="))
            matching = [e for e in events[rank] if e["Event"] == kind
                        and all(str(e.get(k)) == v for k, v in wanted.items())]
            if mode == "absent" and matching:
                raise Failure(f"rank {rank}: expected no {kind} {wanted}, found {len(matching)}")
            if mode == "present" and not matching:
                raise Failure(f"rank {rank}: expected {kind} {wanted}, found none")
            if mode.isdigit() and len(matching) != int(mode):
                raise Failure(f"rank {rank}: expected {mode} x {kind} {wanted}, found {len(matching)}")
    return checked


def check_experiment(exp, nranks, expect_dir=None, min_flushes=0, program=None):
    exp = Path(exp)
    anchor = str(exp / "traces.otf2")
    measurement = json.loads((exp / "measurement.json").read_text())
    comms, groups, regions = read_definitions(anchor)
    events = read_events(anchor, comms, groups)
    check_invariants(events, comms, groups, regions, nranks, program)
    stats = measurement["statistics"]
    if measurement["ranks"] != nranks or len(stats["per_rank"]) != nranks:
        raise Failure(f"measurement.json reports {measurement['ranks']} ranks, expected {nranks}")
    for r in stats["per_rank"]:
        if r["lost_events"] != 0 or not r["trace_written"]:
            raise Failure(f"rank {r['rank']} lost events or wrote no trace: {r}")
        if r["events"] != len(events[r["rank"]]):
            raise Failure(f"rank {r['rank']}: measurement.json says {r['events']} events, trace has {len(events[r['rank']])}")
        flush_enters = sum(1 for e in events[r["rank"]] if e["Event"] == "ENTER" and e["Region"] == "ORRERY_FLUSH")
        buffer_flushes = sum(1 for e in events[r["rank"]] if e["Event"] == "BUFFER_FLUSH")
        if flush_enters != r["flushes"] or buffer_flushes != r["flushes"]:
            raise Failure(f"rank {r['rank']}: {r['flushes']} flushes but {flush_enters} ORRERY_FLUSH regions")
        if r["flushes"] < min_flushes:
            raise Failure(f"rank {r['rank']}: only {r['flushes']} flushes, expected at least {min_flushes}")
    offsets = collections.Counter(int(line.split()[1]) for line in otf2_print(["-C", anchor]).splitlines()
                                  if line.startswith("CLOCK_OFFSET"))
    if any(offsets[rank] != 2 for rank in range(nranks)):
        raise Failure(f"every rank needs two ClockOffset records (init, finalize): {dict(offsets)}")
    checked = check_expectations(expect_dir, events, regions, measurement) if expect_dir else 0
    total = sum(len(v) for v in events.values())
    print(f"check_trace: {total} events on {nranks} ranks, invariants hold, {checked} expectations met")


def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("experiment")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--expect-dir")
    parser.add_argument("--min-flushes", type=int, default=0)
    parser.add_argument("--program", help="expected name of the program root region")
    args = parser.parse_args()
    try:
        check_experiment(args.experiment, args.ranks, args.expect_dir, args.min_flushes, args.program)
    except Failure as failure:
        sys.exit(f"check_trace: FAILED: {failure}")


if __name__ == "__main__":
    main()
