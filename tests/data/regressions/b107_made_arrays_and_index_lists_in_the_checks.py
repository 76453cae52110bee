import numpy as np

# helper-66 (session 39), against this session's checks: three classes where the checks in
# front let the batched code run on inputs it computes otherwise.
# - An array made from a shape parameter and then bound to another name (`out = acc`): the
#   shape's check was moved onto `acc`, which the batched code does not read, so nothing was
#   checked and `k = (2, 2)` filled the rows with `x` where the loop fills row i with `x[i]`.
#   The check moves onto a made array only where the batched code reads it and no other name
#   is bound from it.
# - A float32 array made before the loop (`out = np.ones(k, np.float32)`) beside a list of
#   Python floats: the loop adds each weak float in float32, the batched code the float64
#   array the list becomes (also before this session). The arrays the function makes and the
#   loop reads now take part in the one test that every value computes in float64.
# - An object array of ints as scattered indices: the loop indexes with each Python int,
#   `np.add.at` raises IndexError. An array whose elements are the indices is checked to hold
#   ints (`dtype.kind in 'iu'`).

REWRITTEN = ["aliased", "float32_made", "float32_scattered", "object_indices"]


def aliased(x, k):
    acc = np.zeros(k)
    out = acc
    for i in range(len(x)):
        out[i] = x[i]
    return out


def float32_made(w, k):
    out = np.ones(k, np.float32)
    for i in range(len(w)):
        out[i] += w[i] * 0.1
    return out


def float32_scattered(labels, w, k):
    out = np.ones(k, np.float32)
    for i in range(len(labels)):
        out[labels[i]] += w[i]
    return out


def object_indices(labels, k):
    counts = np.zeros(k, dtype=np.int64)
    for i in range(len(labels)):
        counts[labels[i]] += 1
    return counts


CALLS = [
    ("aliased", "[1.0, 2.0], (2, 2)"),
    ("aliased", "[1.0, 2.0], [2, 2]"),
    ("aliased", "[1.0, 2.0], np.array([2, 2])"),
    ("aliased", "[1.0, 2.0], (2, 1)"),
    ("aliased", "[1.0, 2.0], 3"),
    ("float32_made", "[0.2697867137638703], 1"),
    ("float32_made", "np.array([0.2697867137638703]), 1"),
    ("float32_scattered", "[0], [0.02697867137638703], 1"),
    ("float32_scattered", "np.array([0]), [0.02697867137638703], 1"),
    ("float32_scattered", "[0, 0], np.array([0.5, 0.25]), 2"),
    ("object_indices", "np.array([0, 1, 1], object), 3"),
    ("object_indices", "np.array([0, 1, 1]), 3"),
    ("object_indices", "[0, 1, 1], 3"),
]
