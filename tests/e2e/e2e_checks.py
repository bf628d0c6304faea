"""Shared by fewer_processes.py and memory_limit.py: where the built programs
are, and checks printed as they pass or fail, with the verdict at the end."""
import os

BUILD = os.environ.get("ORRERY_BUILD_DIR", os.path.join(os.getcwd(), "build"))
BIN = os.path.join(BUILD, "bin")
MPIRUN = ["mpirun", "--oversubscribe"]
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def verdict():
    """The exit status: 1 if any check failed."""
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0
