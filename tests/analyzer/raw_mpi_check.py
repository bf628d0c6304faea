#!/usr/bin/env python3
"""Every communication call of the analyzer's replays goes through vmpi::
(docs/analyzer.md, "Fewer analysis processes"): a raw MPI_X call there would
talk to the wrong process when one process hosts several traced ranks, and
no value test notices unless its path runs with -np M < N.

usage: raw_mpi_check.py ANALYZER_SRC_DIR

Fails (exit 1) naming each raw call. Allowed: the block layer itself (it is
the transport), main.cpp, and calls that only ask about datatypes, operations
or this process (MPI_Type_*, MPI_Op_*, MPI_Reduce_local, MPI_Status_*,
MPI_Get_count, MPI_Comm_rank/size of the world, MPI_Init/Finalize/Abort)."""
import os
import re
import sys

LOCAL = re.compile(r"MPI_(Type_\w+|Op_\w+|Reduce_local|Status_\w+|Get_count|Get_elements|"
                   r"Comm_rank|Comm_size|Init\w*|Finalize\w*|Abort|Wtime|Query_thread|"
                   r"Error_string|Get_processor_name|Comm_split_type|Comm_free|Info_\w+|"
                   r"Initialized|Finalized)\s*\(")
CALL = re.compile(r"(?<![\w:])MPI_([A-Z][a-z_A-Z]*)\s*\(")
TRANSPORT = ("vmpi", "block_host", "main.cpp")


def main():
    source = sys.argv[1]
    raw = []
    for name in sorted(os.listdir(source)):
        if not name.endswith((".cpp", ".h")) or name.startswith(TRANSPORT):
            continue
        with open(os.path.join(source, name)) as f:
            for number, line in enumerate(f, 1):
                code = line.split("//", 1)[0]
                for match in CALL.finditer(code):
                    if not LOCAL.match(code, match.start()):
                        raw.append("%s:%d: MPI_%s" % (name, number, match.group(1)))
    for entry in raw:
        print("raw MPI call (use vmpi::): " + entry)
    print("%d raw communication call(s) in %s" % (len(raw), source))
    return 1 if raw else 0


if __name__ == "__main__":
    sys.exit(main())
