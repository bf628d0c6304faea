#!/usr/bin/env python3
"""Exact comparison of two report.h5 files: every dataset (values, tables)
and every attribute, bit for bit, except the attributes that name the run of
the analysis itself (`created`, `creator`). NaN equals NaN.

    same_cube.py A.h5 B.h5     exit 0 if equal, else 1 with the first differences
"""
import sys

import h5py
import numpy as np

RUN_ATTRIBUTES = {"created", "creator"}


def same_array(a, b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a.view(np.uint8), b.view(np.uint8)) or np.array_equal(
            a, b, equal_nan=True)
    return bool(np.all(a == b)) if a.size else True


def differences(path_a, path_b):
    found = []
    with h5py.File(path_a, "r") as a, h5py.File(path_b, "r") as b:
        names_a, names_b = [], []
        a.visit(names_a.append)
        b.visit(names_b.append)
        if sorted(names_a) != sorted(names_b):
            found.append("objects differ: %s" % sorted(set(names_a) ^ set(names_b)))
        for name in ["/"] + sorted(set(names_a) & set(names_b)):
            obj_a, obj_b = a[name], b[name]
            keys = (set(obj_a.attrs) | set(obj_b.attrs)) - RUN_ATTRIBUTES
            for key in sorted(keys):
                if key not in obj_a.attrs or key not in obj_b.attrs:
                    found.append("%s: attribute %s only in one" % (name, key))
                elif not same_array(np.asarray(obj_a.attrs[key]), np.asarray(obj_b.attrs[key])):
                    found.append("%s: attribute %s differs" % (name, key))
            if isinstance(obj_a, h5py.Dataset):
                values_a, values_b = obj_a[()], obj_b[()]
                if not same_array(np.asarray(values_a), np.asarray(values_b)):
                    detail = ""
                    if np.asarray(values_a).dtype.kind == "f" and values_a.shape == values_b.shape:
                        detail = " (largest difference %g)" % np.nanmax(
                            np.abs(values_a - values_b))
                    found.append("%s differs%s" % (name, detail))
    return found


def main():
    if len(sys.argv) != 3:
        print("usage: same_cube.py A.h5 B.h5", file=sys.stderr)
        return 2
    found = differences(sys.argv[1], sys.argv[2])
    for line in found[:20]:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
