import numpy as np

# session 39, found while reading the checks of a histogram: `out = np.zeros(k)` with `k` a
# parameter. The rewrite is tried with each rank of `k`; for `k` of rank 1 (a shape as an
# array) the rank of `out` is unknown, and the direct backend still wrote one number per
# iteration into `out[i]` as though each element were a number: `out[:n] = w * 2.0` lines the
# numbers up with a row's last axis, not with the rows. With `k = np.array([3, 3])` every row
# became `w * 2.0` where the loop fills row i with `w[i] * 2.0` (silently wrong), and `np.add.at`
# of the numbers into rows raised ValueError where the loop returns. A number per iteration
# written into an element of no known rank is now refused in that trial, so the check accepts
# only a scalar `k` and any other runs the loop.

REWRITTEN = ["fill", "weighted"]


def fill(w, k):
    out = np.zeros(k)
    for i in range(len(w)):
        out[i] = w[i] * 2.0
    return out


def weighted(labels, w, k):
    totals = np.zeros(k)
    for i in range(len(labels)):
        totals[labels[i]] += w[i]
    return totals


CALLS = [
    ("fill", "np.array([1.0, 2.0, 3.0]), 3"),
    ("fill", "np.array([1.0, 2.0, 3.0]), np.array([3, 3])"),
    ("fill", "np.array([1.0, 2.0, 3.0]), np.array([3, 2])"),
    ("fill", "np.array([1.0, 2.0, 3.0]), (3, 3)"),
    ("fill", "[1.0, 2.0], np.array([2, 2, 2])"),
    ("weighted", "np.array([0, 2, 1]), np.array([0.5, 1.5, 2.5]), 3"),
    ("weighted", "np.array([0, 2, 1]), np.array([0.5, 1.5, 2.5]), np.array([3, 2])"),
    ("weighted", "[0, 2, 2], [0.5, 1.5, 2.5], np.array([3, 2])"),
    ("weighted", "[0, 2, 2], [0.5, 1.5, 2.5], (3, 2)"),
]
