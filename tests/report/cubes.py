"""Test cubes written with h5py exactly as docs/design.md §5 describes report.h5, and
the reference computations (numpy over the file) the tools must agree with."""

import h5py
import numpy as np

METRICS = [  # name, parent name, unit
    ("time", None, "sec"),
    ("execution", "time", "sec"),
    ("mpi", "execution", "sec"),
    ("late_sender", "mpi", "sec"),
    ("overhead", "time", "sec"),
    ("visits", None, "occ"),
    ("bytes_sent", None, "bytes"),
]


def random_tree(rng, n_callpaths, names):
    """Pre-order call tree: a list of (parent, region name) built by random descent."""
    tree = [(-1, "main")]
    stack = [0]
    while len(tree) < n_callpaths:
        if len(stack) > 1 and rng.random() < 0.35:
            stack.pop()
            continue
        parent = stack[-1]
        used = {name for p, name in tree if p == parent}
        choices = [n for n in names if n not in used]
        if not choices:
            stack.pop()
            continue
        tree.append((parent, str(rng.choice(choices))))
        stack.append(len(tree) - 1)
    return tree


def write_cube(path, tree, ranks, values, metrics=METRICS, fixed_strings=False,
               format_name="orrery-cube", format_version=1):
    """values: dict metric name -> array [n_callpaths][n_ranks]; absent metrics are zero."""
    text = "S64" if fixed_strings else h5py.string_dtype("utf-8")
    region_names = []
    for _, name in tree:
        if name not in region_names:
            region_names.append(name)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = format_name
        f.attrs["format_version"] = np.int32(format_version)
        f.attrs["creator"] = "tests/report/cubes.py"
        f.attrs["experiment"] = "synthetic"
        f.attrs["created"] = "2026-11-21T00:00:00Z"
        names = [m[0] for m in metrics]
        rows = [(m[0], m[0].replace("_", " ").title(), -1 if m[1] is None else names.index(m[1]),
                 m[2], "about " + m[0]) for m in metrics]
        f["metrics"] = np.array(rows, dtype=[("name", text), ("display_name", text),
                                             ("parent", "<i4"), ("unit", text),
                                             ("description", text)])
        f["regions"] = np.array([(n, "app.c" if not n.startswith("MPI_") else "", 10 * i,
                                  "mpi" if n.startswith("MPI_") else "user")
                                 for i, n in enumerate(region_names)],
                                dtype=[("name", text), ("file", text), ("line", "<i4"),
                                       ("paradigm", text)])
        f["callpaths"] = np.array([(p, region_names.index(n)) for p, n in tree],
                                  dtype=[("parent", "<i4"), ("region", "<i4")])
        f["locations"] = np.array([(r, 0, "node%d" % (r // 2), "rank %d" % r) for r in ranks],
                                  dtype=[("rank", "<i4"), ("thread", "<i4"), ("node", text),
                                         ("name", text)])
        group = f.create_group("values")
        for name in names:
            data = values.get(name, np.zeros((len(tree), len(ranks))))
            # Chunks split both dimensions, with partial edge chunks, unlike Orrery's writer.
            empty = not (len(tree) and len(ranks))
            group.create_dataset(name, data=np.asarray(data, dtype="<f8"),
                                 chunks=None if empty else (max(1, len(tree) // 3),
                                                            max(1, (len(ranks) + 1) // 2)),
                                 compression=None if empty else "gzip",
                                 shuffle=not empty and name.startswith("t"))


def random_values(rng, tree, ranks):
    shape = (len(tree), len(ranks))
    sparse = rng.random(shape) < 0.6
    values = {}
    for name, _, unit in METRICS:
        scale = {"sec": 0.5, "occ": 100, "bytes": 1e6}[unit]
        data = rng.random(shape) * scale * sparse
        if unit != "sec":
            data = np.floor(data)
        values[name] = data
    return values


# ---- reference computations from a file ------------------------------------

def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


class Reference:
    """What the tools should print, computed with numpy from the file itself."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.metrics = [text(n) for n in f["metrics"]["name"]]
            self.metric_parent = list(f["metrics"]["parent"])
            regions = [text(n) for n in f["regions"]["name"]]
            self.parents = list(f["callpaths"]["parent"])
            self.names = [regions[r] for r in f["callpaths"]["region"]]
            self.ranks = list(f["locations"]["rank"])
            self.values = {m: f["values"][m][...] for m in self.metrics}
        self.labels = []
        for parent, name in zip(self.parents, self.names):
            self.labels.append(name if parent < 0 else self.labels[parent] + "/" + name)

    def metric_subtree(self, metric):
        inside = {self.metrics.index(metric)}
        for row, parent in enumerate(self.metric_parent):
            if parent in inside:
                inside.add(row)
        return [self.metrics[r] for r in sorted(inside)]

    def exclusive(self, metric, with_submetrics=True):
        names = self.metric_subtree(metric) if with_submetrics else [metric]
        return sum(self.values[m] for m in names)

    def inclusive(self, matrix):
        out = np.array(matrix, dtype=float, copy=True)
        for row in range(len(self.parents) - 1, -1, -1):
            if self.parents[row] >= 0:
                out[self.parents[row]] += out[row]
        return out
