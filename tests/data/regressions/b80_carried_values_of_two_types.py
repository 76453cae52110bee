import numpy as np

# helper-44 (session 25): a value an inner loop carries, or sums, inside a vectorized outer loop
# keeps the type of its first value on the outer iterations that never update it (a Python int,
# `last = -1`; a uint8 element, `m = X[i, 0]`) and takes the update's type on the others, where
# the batched variable is one array of the dtype `np.where` gives both: 255 for -1 beside uint8
# values, int8 sums that the loop's Python ints never wrap, a uint8 `m * 2` the batched float64
# never wraps. A count of Python ints (`c = c + 1`) beside a uint8 value wrapped in the loop and
# not in the batched int64; a masked sum of bools (the loop's `m + d` of bools is their `or`)
# was counted, the identity 0 making the terms int64. And a term that does not vary along the
# inner loop, under an outer test (`if m < 1: s = s - 1`), crashed the transpiler; a masked
# inner sum from `m = -1` asked `np.result_type(-1, uint8 terms)`, which raises, where no
# iteration passed the test.


def last_above(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        last = -1
        for j in range(A.shape[1]):
            v = A[i, j]
            if v > 128:
                last = v
        out[i] = last
    return out


def stepped(a, b):
    out = np.zeros(len(a))
    for i in range(len(a)):
        m = 0
        for j in range(len(b)):
            d = a[i] + b[j]
            if d > 5:
                m = d
            else:
                m = m + 1
        out[i] = m
    return out


def halved(X, Y):
    n = X.shape[0]
    out = np.zeros(n, dtype=np.float32)
    for i in range(n):
        m = X[i, 0]
        for j in range(len(Y)):
            d = X[i, 0] * Y[j, 0]
            if d > m:
                m = m * 0.5
        m = m * 2
        out[i] = m
    return out


def counted(X, Y):
    n = X.shape[0]
    out = np.zeros(n, dtype=np.float32)
    for i in range(n):
        m = X[i, 0]
        c = 0
        for j in range(len(Y)):
            d = np.max(np.abs(X[i] - Y[j]))
            if d > 1:
                c = c + 1
        out[i] = m + c
    return out


def any_of(X, Y):
    n = X.shape[0]
    out = np.zeros(n)
    for i in range(n):
        m = X[i, 0]
        for j in range(Y.shape[0] - 1):
            d = np.dot(X[i], Y[j])
            if j % 2 == 0:
                m = m + d
        out[i] = m
    return out


def outer_test(X, Y):
    n = X.shape[0]
    out = np.zeros(n)
    for i in range(n):
        m = X[i, 0]
        s = 0.0
        for j in range(Y.shape[0]):
            if m < 1:
                s = s - 1
        out[i] = m + s
    return out


def never_added(X, Y):
    out = np.zeros(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        m = -1
        for j in range(Y.shape[0]):
            d = X[i, 0] * Y[j, 0]
            if d != d:
                m = m + d
        out[i] = m
    return out


CALLS = [('never_added', 'np.array([[1, 2], [3, 4]], np.uint8), np.array([[1], [2]], np.uint8)'),
         ('never_added', 'np.array([[1.0, 2.0]]), np.array([[1.0], [np.nan]])'),
         ('last_above', 'np.array([[1, 200], [3, 4]], np.uint8)'),
         ('last_above', 'np.array([[1, 2], [3, 4]], np.uint16)'),
         ('last_above', 'np.array([[1.0, 200.0], [3.0, 4.0]])'),
         ('stepped', 'np.array([0], np.int8), np.ones(200, np.int8)'),
         ('stepped', 'np.array([0.0, 3.0]), np.array([1.0, 4.0, 0.5])'),
         ('halved', 'np.array([[126, 1], [200, 3], [1, 1]], np.uint8), np.array([[1, 1], [2, 2]], np.uint8)'),
         ('halved', 'np.array([[126.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 1.0], [200.0, 2.0]])'),
         ('counted', 'np.array([[254, 1], [3, 4], [1, 1]], np.uint8), np.array([[1, 1], [2, 2], [9, 9]], np.uint8)'),
         ('counted', 'np.array([[0.5, 1.0], [3.0, 4.0]]), np.array([[1.0, 1.0], [9.0, 9.0]])'),
         ('any_of', 'np.ones((3, 2), bool), np.ones((4, 2), bool)'),
         ('any_of', 'np.ones((3, 2)), np.ones((4, 2))'),
         ('outer_test', 'np.array([[0.5, 1.0], [3.0, 4.0]]), np.ones((3, 2))')]

REWRITTEN = ['any_of', 'counted', 'halved', 'last_above', 'never_added', 'stepped']
