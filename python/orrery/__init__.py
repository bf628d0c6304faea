"""Orrery reports (report.h5, docs/design.md §5) as pandas DataFrames.

    import orrery
    report = orrery.open("EXP/report.h5")
    report.metrics                  # one row per metric (name, display_name, parent, unit, ...)
    report.callpaths                # one row per call path, with its name path "main/solve"
    report.locations                # rank, thread, node, name
    report.values("late_sender")    # call path x location, exclusive values
    report.values("mpi", inclusive=True)

Needs numpy, h5py and pandas only (Debian: python3-numpy python3-h5py
python3-pandas); to_hatchet() needs LLNL Hatchet. See docs/python.md.
"""
from .report import Report, ReportError, open  # noqa: F401  (open shadows the builtin on purpose)

__all__ = ["Report", "ReportError", "open"]
