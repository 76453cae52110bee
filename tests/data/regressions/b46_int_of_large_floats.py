import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: `int(v)` was batched as
# `.astype(int)`, which wraps a float past int64 (1e19 became -2**63) where Python's int is
# exact. Such values now take a slower path to Python ints; NaN lanes an `if` skips still pass.

def truncated(x):
    out = []
    for v in x:
        out.append(int(v))
    return out


def stored(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = int(x[i]) * 2
    return out


def finite_only(x):
    out = []
    for v in x:
        if v == v:
            out.append(int(v))
    return out


CALLS = [("truncated", "np.array([1e19, -3.7, 2.5])"), ("truncated", "[1e19, -2e19]"),
         ("truncated", "np.array([1, 2], np.uint64) * (2 ** 63)"), ("truncated", "np.array([-3.7, 2.5])"),
         ("stored", "np.array([1e19, 1.5])"), ("stored", "np.array([6e18, 1.5])"),
         ("finite_only", "np.array([1e19, np.nan, 2.5])"),
         ("finite_only", "np.array([np.inf, 2.5])")]

# `stored` stays a loop since session 18 (b64): `int(x[i]) * 2` of a value in [2**62, 2**63)
# wraps in int64, and no bound of `int(x[i])` is known before the loop.
REWRITTEN = ("truncated", "finite_only")
