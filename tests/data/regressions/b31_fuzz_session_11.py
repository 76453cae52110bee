import numpy as np

# Fuzzer finds of session 11.
#
# - linspace_weak_stop: `np.linspace(x[i] - 2.0, c - i, 3)` with `c` a Python float: `c - i` is
#   a Python float in the loop, weak against a float32 start (float32 rows); batched it was a
#   float64 array, and the rows float64 (fuzz seed 6630462). It is cast as for `np.minimum`.


def linspace_weak_stop(x, c):
    rows = []
    for i in range(len(x)):
        rows.append(np.linspace(x[i] - 2.0, c - i, 3))
    return np.stack(rows, axis=-1)


CALLS = [("linspace_weak_stop", "np.array([1.5, -0.25, 3.0], dtype=np.float32), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25, 3.0]), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25], dtype=np.float32), np.float32(2.5)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("linspace_weak_stop",)
