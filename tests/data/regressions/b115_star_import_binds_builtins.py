from numpy import *  # noqa: F403 - the star import is the case
import numpy as np

# helper-70 (session 41): `from numpy import *` binds `all`, `max`, `sum`, ... to NumPy's, which
# pforge took for the builtins: the check's `all(type(v) is np.ndarray for v in x)` became
# `np.all` of a generator, always true, so a list of ints went to batched code that raised
# where the loop returns; `max(x[i], 0.0)` is `np.max(x[i], axis=0.0)`, which raises in the
# loop, where the rewrite returned. A star import binds the names its module exports
# (frontend.star_imported_builtins: NumPy's known, every builtin's for a module not known).

REWRITTEN = []


def halves(x):
    out = []
    for v in x:
        out.append(v // 2)
    return out


def clip0(x):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = max(x[i], 0.0)
    return out


CALLS = [
    ("halves", "[5, 6]"),
    ("halves", "np.array([5, 6])"),
    ("clip0", "np.array([1.0, -2.0])"),
]
