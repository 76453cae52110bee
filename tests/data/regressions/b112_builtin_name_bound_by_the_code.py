import numpy as np

# Session 41: a parameter named like a builtin (`type="sum"`, common in real code) that the
# run-time checks call (`type(xs) is np.ndarray`): the rewrite raised TypeError ('str' object
# is not callable) where the loop returns. A rewrite that calls a builtin the code binds to
# something else where the loop runs, or reads one the loop does not read, is refused
# (versioning._shadowed_builtin); one the loop reads as its own value (`len` as a size) is fine.

REWRITTEN = ["of_length"]


def by_kind(xs, ys, type="sum"):
    out = np.empty((xs.shape[0], ys.shape[0]))
    for a in range(xs.shape[0]):
        for b in range(ys.shape[0]):
            out[a, b] = np.sum(xs[a] * ys[b])
    return out


def listed(x, n, list=None):
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2.0
    return out


def of_length(x, len=3):
    out = np.zeros(len)
    for i in range(len):
        out[i] = x[i] * 2.0
    return out


CALLS = [
    ("by_kind", "np.ones((2, 3)), np.ones((3, 3))"),
    ("listed", "[1.0, 2.0, 3.0], 3"),
    ("listed", "np.array([1.0, 2.0, 3.0]), 2"),
    ("of_length", "[1.0, 2.0, 3.0]"),
    ("of_length", "np.array([1.0, 2.0, 3.0, 4.0]), 4"),
]
