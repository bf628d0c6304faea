#!/usr/bin/env python3
"""Instructions a process executed outside MPI, from a callgrind output file.

    callgrind_outside_mpi.py callgrind.out.PID-01 [...]   prints one count per file

Instruction counts do not depend on the load of the machine, unlike CPU
seconds, but inside MPI an oversubscribed process polls for as long as it
waits: so the count leaves out every call from outside MPI into an MPI
function (a name starting with MPI_ or PMPI_), with everything that call
executed. What remains is the program's own work (and the dynamic loader's,
and whatever the libraries do outside MPI calls).

The callgrind format (valgrind's docs, "Callgrind Format Specification"):
`fn=`/`cfn=` name the current and the called function, with name compression
`(id) name` on first use and `(id)` after; a `calls=N target` line is followed
by one cost line whose cost is the inclusive cost of those calls.
"""

import re
import sys

NAME = re.compile(r"^\((\d+)\)(?: (.*))?$")


def is_mpi(name):
    return name.startswith("MPI_") or name.startswith("PMPI_")


def outside_mpi(path):
    names = {}
    total = 0
    inside = 0
    caller = ""
    callee = ""
    after_calls = False

    def resolve(text):
        match = NAME.match(text.strip())
        if not match:
            return text.strip()
        if match.group(2) is not None:
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), "")

    with open(path) as lines:
        for line in lines:
            if after_calls:
                after_calls = False
                fields = line.split()
                if len(fields) >= 2 and is_mpi(callee) and not is_mpi(caller):
                    inside += int(fields[1])
                continue
            if line.startswith("fn="):
                caller = resolve(line[3:])
            elif line.startswith("cfn="):
                callee = resolve(line[4:])
            elif line.startswith("calls="):
                after_calls = True
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = max(total, int(line.split()[1]))
    return total - inside, total


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        outside, total = outside_mpi(path)
        print("%s outside_mpi=%d total=%d" % (path, outside, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
