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
# - wrap_around_of_a_list: the check that a wrap-around variable's start does not widen the
#   data called `np.result_type` on a Python list, which raises (fuzz seeds 6680103 and six
#   more, in this session's own new check); the list is read through `np.asarray`.


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



def wrap_around_of_a_list(x):
    w = 2
    out = np.zeros(len(x))
    for i in range(1, len(x)):
        out[i] = np.maximum(w, x[i])
        w = x[i - 1]
    return out


CALLS = [("linspace_weak_stop", "np.array([1.5, -0.25, 3.0], dtype=np.float32), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25, 3.0]), 0.5"),
         ("linspace_weak_stop", "np.array([1.5, -0.25], dtype=np.float32), np.float32(2.5)"),
         ("rows_of_a_carried_loop", "np.array([1.5, -0.25, 2.0], dtype=np.float32), 0.25"),
         ("wrap_around_of_a_list", "[0.5]"),
         ("wrap_around_of_a_list", "[0.5, 3.0, -1.0]"),
         ("wrap_around_of_a_list", "np.array([0.5, 3.0, -1.0, 7.0])")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("linspace_weak_stop", "wrap_around_of_a_list")
