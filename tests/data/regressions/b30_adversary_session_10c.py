import numpy as np

# A third adversarial pass (session 10), on lists read as arrays, gathers and merged values.
#
# - excl_list_views, rec_list_views: terms given as a list of 0-d views of the written array
#   passed `np.may_share_memory`, which compares a fresh array made of the list; each item is
#   compared now.
# - remap: a lookup table of Python ints with one of 2**63 or more (uint64, or float64 beside
#   int64 ones) or ints past 2**53 beside floats was read as a float64 array; only tables a
#   float64 holds exactly are converted.
# - rowsel_sum is left as a loop: `y[x[i] > 0]` indexes with a NumPy bool (a new axis: all of
#   `y`, or nothing), where a batch of them would be a mask along `y`'s first axis.
# - gather_or_default: `t[k] if c else -1` took the table's dtype for -1 in `np.where` (255
#   beside uint8, float32(0.1) beside float32); the Python number is an array of its own kind.
# - gather_where: a write under a test merged the gathered values with the old elements in
#   `np.where`, promoting both (an int64 `out` beside float values went through float64, also
#   where the loop never writes); the values are cast to `out`'s dtype first.
# - exclusive_max: `np.maximum` over an object array's items gives NumPy numbers, its
#   accumulate the objects themselves; object terms run the loop.


def excl_list_views(counts, out, total):
    for i in range(len(counts)):
        out[i] = total
        total += counts[i]
    return out, total


def rec_list_views(a, b):
    for i in range(1, len(a)):
        a[i] = a[i - 1] + b[i]
    return a


def remap(picture, table):
    for i in range(len(picture)):
        level = picture[i]
        if level != table[level]:
            picture[i] = table[level]
    return picture


def rowsel_sum(x, y, out):
    for i in range(len(x)):
        nz = y[x[i] > 0]
        out[i] = nz.sum()
    return out


def gather_or_default(idx, t, out):
    for i in range(len(idx)):
        out[i] = t[idx[i]] if idx[i] < len(t) else -1
    return out


def gather_or_tenth(idx, t, out):
    for i in range(len(idx)):
        out[i] = t[idx[i]] if idx[i] < len(t) else 0.1
    return out


def gather_where(idx, t, out):
    for i in range(len(idx)):
        if idx[i] < len(t):
            out[i] = t[idx[i]]
    return out


def exclusive_max(counts, out, total):
    for i in range(len(counts)):
        out[i] = total
        total = np.maximum(total, counts[i])
    return out, total


CALLS = [("excl_list_views", "*(lambda o: ([o[k, ...] for k in range(4)], o, 1))(np.arange(1, 7))"),
         ("excl_list_views", "np.array([3, 1, 2]), np.zeros(3, dtype=np.int64), 1"),
         ("rec_list_views", "*(lambda a: (a, [a[max(k - 1, 0), ...] for k in range(5)]))(np.arange(1.0, 6.0))"),
         ("rec_list_views", "np.arange(1.0, 6.0), np.ones(5)"),
         ("remap", "np.array([2, 1], dtype=np.uint64), [0, 1, 2**64 - 1, 3]"),
         ("remap", "np.array([0, 1]), [2**60 + 1, 0.5]"),
         ("remap", "np.array([2, 0, 3]), [1, 0, 3, 2]"),
         ("rowsel_sum", "np.array([1.0, -2.0, 3.0]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.zeros(3)"),
         ("gather_or_default", "np.array([0, 5, 1]), np.array([10, 20], dtype=np.uint8), np.zeros(3, dtype=np.int64)"),
         ("gather_or_tenth", "np.array([0, 5]), np.array([1.5, 2.5], dtype=np.float32), np.zeros(2)"),
         ("gather_where", "np.array([0, 7]), np.array([1.5, 2.5]), np.array([0, 2**53 + 1])"),
         ("gather_where", "np.array([0, 7]), np.array([2**53 + 1, 3]), np.array([0, 5], dtype=np.uint64)"),
         ("exclusive_max", "np.array([3, 8, 1], dtype=object), np.zeros(3), 0.0"),
         ("exclusive_max", "np.array([3.0, 8.0, 1.0]), np.zeros(3), 0.0")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("excl_list_views", "rec_list_views", "remap", "gather_or_default", "gather_or_tenth", "gather_where",
             "exclusive_max")
