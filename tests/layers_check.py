#!/usr/bin/env python3
"""The folders follow the pipeline (docs/analyzer.md, "The pipeline"): each
includes only the parts before it, so no two folders include each other.

usage: layers_check.py SOURCE_DIR

trace/ (OTF2 into the trace model) <- replay/ (the replay events) <- patterns/
<- analyzer/ (replays and driver); viewer/ reads traces through trace/ only.
Fails (exit 1) naming every include that goes against that order."""
import os
import re
import sys

# folder -> include prefixes it must not use
FORBIDDEN = {
    "trace": ["orrery/replay/", "orrery/patterns/", "orrery/analyzer/", "orrery/viewer/"],
    "replay": ["orrery/patterns/", "orrery/analyzer/", "orrery/viewer/"],
    "patterns": ["orrery/analyzer/", "orrery/viewer/"],
    "viewer": ["orrery/analyzer/", "orrery/patterns/"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    root = sys.argv[1]
    wrong = []
    for folder, prefixes in FORBIDDEN.items():
        for directory, _, files in os.walk(os.path.join(root, folder)):
            if "node_modules" in directory or os.sep + "web" in directory:
                continue
            for name in files:
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(directory, name)
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if match and match.group(1).startswith(tuple(prefixes)):
                            wrong.append("%s:%d: %s" % (os.path.relpath(path, root), number,
                                                        match.group(1)))
    for entry in wrong:
        print("include against the pipeline's order: " + entry)
    print("%d include(s) against the order trace <- replay <- patterns <- analyzer" % len(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
