"""Reading one Orrery report (report.h5) into pandas DataFrames."""
import builtins

import h5py
import numpy as np
import pandas as pd

_FORMAT = "orrery-cube"


class ReportError(Exception):
    """The file is missing, not HDF5, or not an Orrery report."""


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _table(dataset):
    """A 1-D compound dataset as a DataFrame, strings decoded."""
    rows = dataset[:]
    frame = pd.DataFrame({name: rows[name] for name in rows.dtype.names})
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(_text)
    return frame


def open(path):  # noqa: A001  (orrery.open, like h5py.File or pandas.read_*)
    """Opens a report file; raises ReportError if it is not one."""
    return Report(path)


class Report:
    """An Orrery cube: metric x call path x location, exclusive in both trees."""

    def __init__(self, path):
        self.path = str(path)
        try:
            with builtins.open(self.path, "rb"):
                pass
            self._file = h5py.File(self.path, "r")
        except OSError as error:
            raise ReportError("%s: cannot be read as a report (%s)" % (self.path, error)) from None
        if _text(self._file.attrs.get("format", b"")) != _FORMAT:
            self._file.close()
            raise ReportError("%s: not an Orrery report (format attribute is not %s)"
                              % (self.path, _FORMAT))
        try:
            self.metrics = _table(self._file["metrics"])
            self.regions = _table(self._file["regions"])
            self.callpaths = self._callpath_table()
            self.locations = _table(self._file["locations"])
        except KeyError as error:
            self._file.close()
            raise ReportError("%s: damaged report (%s)" % (self.path, error)) from None
        self.attributes = {key: (_text(value) if isinstance(value, (bytes, str)) else value.item()
                                 if hasattr(value, "item") else value)
                           for key, value in self._file.attrs.items()}

    # -- context manager, so `with orrery.open(p) as r:` closes the file
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    def _callpath_table(self):
        table = _table(self._file["callpaths"])
        names = self.regions["name"].to_numpy()
        paths = []
        for row in table.itertuples():
            own = names[row.region]
            paths.append(own if row.parent < 0 else paths[row.parent] + "/" + own)
        table["name"] = names[table["region"].to_numpy()]
        table["path"] = paths
        return table

    def metric_names(self):
        return list(self.metrics["name"])

    def _metric_row(self, metric):
        matches = np.flatnonzero(self.metrics["name"].to_numpy() == metric)
        if len(matches) == 0:
            raise KeyError("%s: no metric %r (metrics: %s)"
                           % (self.path, metric, ", ".join(self.metric_names())))
        return int(matches[0])

    def _matrix(self, metric):
        self._metric_row(metric)
        dataset = "values/" + metric
        if dataset not in self._file:
            return np.zeros((len(self.callpaths), len(self.locations)))
        return np.asarray(self._file[dataset][:], dtype=np.float64)

    def _location_labels(self):
        threads = self.locations["thread"].to_numpy()
        ranks = self.locations["rank"].to_numpy()
        if np.all(threads == 0):
            return pd.Index(ranks, name="rank")
        return pd.MultiIndex.from_arrays([ranks, threads], names=["rank", "thread"])

    def values(self, metric, inclusive=False):
        """DataFrame indexed by call path (name path), a column per location.

        Exclusive values as stored; inclusive=True sums the metric's
        sub-metrics and each call path's subtree (docs/design.md §5)."""
        matrix = self._matrix(metric)
        if inclusive:
            row = self._metric_row(metric)
            parents = self.metrics["parent"].to_numpy()
            for child in range(row + 1, len(parents)):
                if self._descends(child, row, parents):
                    matrix = matrix + self._matrix(self.metrics["name"].iloc[child])
            callpath_parents = self.callpaths["parent"].to_numpy()
            # Pre-order: every child row follows its parent, so a reverse sweep
            # adds each finished subtree into its parent.
            for c in range(len(callpath_parents) - 1, -1, -1):
                if callpath_parents[c] >= 0:
                    matrix[callpath_parents[c]] += matrix[c]
        return pd.DataFrame(matrix, index=pd.Index(self.callpaths["path"], name="callpath"),
                            columns=self._location_labels())

    @staticmethod
    def _descends(node, ancestor, parents):
        while node >= 0:
            node = parents[node]
            if node == ancestor:
                return True
        return False

    def efficiency(self):
        """POP efficiencies (name, value, description), or None if the report has none."""
        return _table(self._file["efficiency"]) if "efficiency" in self._file else None

    def findings(self):
        """The report's findings table, or an empty DataFrame when it has none."""
        return _table(self._file["findings"]) if "findings" in self._file else pd.DataFrame()

    def to_hatchet(self, metrics=None):
        """A Hatchet GraphFrame (needs the hatchet package); see hatchet_bridge.py."""
        from .hatchet_bridge import to_graphframe
        return to_graphframe(self, metrics)

    def __repr__(self):
        return "<orrery.Report %s: %d metrics, %d call paths, %d locations>" % (
            self.path, len(self.metrics), len(self.callpaths), len(self.locations))
