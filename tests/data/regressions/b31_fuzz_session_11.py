import numpy as np

# Fuzzer finds of session 11.
#
# - linspace_weak_stop: `np.linspace(x[i] - 2.0, c - i, 3)` with `c` a Python float: `c - i` is
#   a Python float in the loop, weak against a float32 start (float32 rows); batched it was a
#   float64 array, and the rows float64 (fuzz seed 6630462). It is cast as for `np.minimum`.
# - rows_of_a_carried_loop: `row = []; for j ...: row.append(v); L.append(row)` inside an outer
#   loop that stays a loop (a nonlinear recurrence): the inner loop alone turned `row` into an
#   array, an item of `L` of another type (fuzz seed 6661770). The row is batched only with the
#   loop around it.


def linspace_weak_stop(x, c):
    rows = []
    for i in range(len(x)):
        rows.append(np.linspace(x[i] - 2.0, c - i, 3))
    return np.stack(rows, axis=-1)



def rows_of_a_carried_loop(x, c):
    h = 0.0
    rows = []
    for i in range(len(x)):
        h = np.sin(h) * 0.5 + x[i]
        row = []
        for j in range(3):
            row.append((0.5 - c) * j + x[i])
        rows.append(row)
    return h, rows


CALLS = [("linspace_weak_stop", "np.array([1.5, -0.25, 3.0], dtype=np.float32), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25, 3.0]), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25], dtype=np.float32), np.float32(2.5)"),
         ("rows_of_a_carried_loop", "np.array([1.5, -0.25, 2.0], dtype=np.float32), 0.25")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("linspace_weak_stop",)
