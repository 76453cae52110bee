import itertools

import numpy as np

# Wrong results a fresh adversary found in this session's rewrites before they shipped: an
# array `fill` spread over every row's selection at once; block strides that are NumPy small
# ints (wrapping) or floats; `enumerate(combinations(...))` counted with `len()` of an
# iterator; combinations of rows that are lists; one constant scattered at bool indices
# (`seen[np.True_]` is every element); a write into a Python list; an inner range read from
# the outer row in a run-time check; `astype(copy=False)` taken for a copy.


def masked_fill(x, t, fill):
    out = []
    for i in range(len(x)):
        a = np.abs(x[i])
        a[a > t[i]] = fill
        out.append(a)
    return np.stack(out)


def small_int_stride(x, b, n):
    out = np.zeros(len(x))
    for y in range(n):
        out[b * y:b * (y + 1)] = np.sum(x[b * y:b * (y + 1)])
    return out


def enumerated_pairs(dims):
    out = np.zeros(3)
    for k, (a, b) in enumerate(itertools.combinations(dims, 2)):
        out[k] = a * b
    return out


def pairs_of_list_rows(pts):
    d = []
    for a, b in itertools.combinations(pts, 2):
        d.append(np.sum((a - b) ** 2))
    return np.array(d)


def marks(idx, n):
    seen = np.zeros(n, dtype=bool)
    for i in range(len(idx)):
        seen[idx[i]] = True
    return seen


def bool_index_into_own_array(x, m):
    out = []
    for i in range(len(x)):
        a = np.abs(x[i])
        a[m[i]] = 0.0
        out.append(a)
    return np.stack(out)


def into_a_list(idx, n):
    seen = [0.0] * n
    for i in range(len(idx)):
        seen[idx[i]] = 1.0
    return seen


def inner_range_of_the_row(t, n2):
    t1 = np.zeros(n2)
    for i in range(len(t)):
        for j in range(len(t[i])):
            if t[i][j] > 0:
                t1[j] = 1
    return t1


def astype_no_copy(x):
    out = []
    for i in range(len(x)):
        a = x[i].astype(float, copy=False)
        a[a < 0] = 0
        out.append(a)
    return [np.array(out), x]


CALLS = [("masked_fill", "np.array([[5.0, 5, 0], [5, 5, 0]]), np.array([1.0, 1]), 7.0"),
         ("masked_fill", "np.array([[5.0, 5, 0], [5, 5, 0]]), np.array([1.0, 1]), np.array([7.0, 8])"),
         ("small_int_stride", "np.arange(10.0), np.int8(64), 2"),
         ("small_int_stride", "np.arange(10.0), np.uint8(2), -1"),
         ("small_int_stride", "np.arange(10.0), 2.0, 2"),
         ("small_int_stride", "np.arange(10.0), 3, 3"),
         ("enumerated_pairs", "[1.0, 2.0, 4.0]"),
         ("pairs_of_list_rows", "np.arange(6.0).reshape(3, 2)"),
         ("marks", "np.array([False, True, False]), 4"),
         ("marks", "np.array([3, 1, 3]), 5"),
         ("bool_index_into_own_array", "np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([True, False])"),
         ("bool_index_into_own_array", "np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1, 0])"),
         ("into_a_list", "np.array([2, 0, 2]), 4"),
         ("inner_range_of_the_row", "np.array([[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]), 3"),
         ("astype_no_copy", "np.array([[1.0, -1.0], [-2.0, 3.0]])")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("masked_fill", "small_int_stride", "pairs_of_list_rows", "marks", "bool_index_into_own_array")


def ones_as_long_as_a_row(x):
    # `np.ones(len(x[i]))` is the same on every iteration, but names the loop index: it was
    # copied as written, `i` unbound (a NameError where the loop runs)
    out = np.zeros(len(x))
    for i in range(len(x)):
        a = np.ones(len(x[i]))
        out[i] = np.sum(a)
    return out


CALLS += [("ones_as_long_as_a_row", "np.zeros((3, 4))"), ("ones_as_long_as_a_row", "np.zeros((0, 4))"),
          ("ones_as_long_as_a_row", "np.zeros(0)")]
REWRITTEN += ("ones_as_long_as_a_row",)

# (session 12) a nest no backend batches whole has its inner loops tried on their own: the
# inner loop of `inner_range_of_the_row` writes one constant under a test of its own row
REWRITTEN += ("inner_range_of_the_row",)
