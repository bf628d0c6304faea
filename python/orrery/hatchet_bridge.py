"""A report as an LLNL Hatchet GraphFrame (only when hatchet is installed)."""


def to_graphframe(report, metrics=None):
    """GraphFrame of the call tree, values summed over locations.

    Each metric M becomes two columns, "M" (exclusive) and "M (inc)"
    (inclusive along the call tree); metrics default to time and visits.
    Node frames carry the region name and its paradigm as "type"."""
    try:
        import hatchet
    except ImportError:
        raise ImportError("to_hatchet() needs LLNL Hatchet (pip install llnl-hatchet)") from None
    metrics = list(metrics) if metrics else [m for m in ("time", "visits")
                                             if m in report.metric_names()]
    exclusive = {m: report.values(m).to_numpy().sum(axis=1) for m in metrics}
    inclusive = {m: report.values(m, inclusive=True).to_numpy().sum(axis=1) for m in metrics}
    paradigms = report.regions["paradigm"].to_numpy()
    nodes = []
    roots = []
    for row in report.callpaths.itertuples():
        values = {}
        for m in metrics:
            values[m] = float(exclusive[m][row.Index])
            values[m + " (inc)"] = float(inclusive[m][row.Index])
        node = {"frame": {"name": row.name, "type": str(paradigms[row.region])},
                "metrics": values, "children": []}
        nodes.append(node)
        (roots if row.parent < 0 else nodes[row.parent]["children"]).append(node)
    return hatchet.GraphFrame.from_literal(roots)
