import numpy as np

# helper-44 (session 25): after b75 and b77, binary NumPy ufuncs under a per-iteration test
# skipped the checks the operators get: `np.add(a[j], k)` of uint8 values and k = -1 or 300
# raised OverflowError in the batched code where no element passed the test (also
# `np.maximum`, `np.multiply`, `np.floor_divide`); a power to an exponent that may be a
# negative integer raised ValueError for an int base (`a[j] ** k`, `np.power`); and, for a
# number of unknown kind, `a[j] - k` of bools, `a[j] // k` of a complex, `a[j] << k` of a float
# raised TypeError.


def added(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = np.add(a[j], k)
    return out


def largest(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = np.maximum(a[j], k)
    return out


def powered(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] ** k
    return out


def np_powered(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = np.power(a[j], k)
    return out


def less(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] - k
    return out


def floored(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] // k
    return out


def shifted(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] << k
    return out


CALLS = [('added', 'np.array([1, 2], np.uint8), -1'),
         ('added', 'np.array([1, 2], np.uint8), 300'),
         ('added', 'np.array([1.0, 200.0]), 3'),
         ('largest', 'np.array([1, 2], np.uint8), -1'),
         ('largest', 'np.array([1.0, 200.0]), 300.0'),
         ('powered', 'np.array([1, 2]), np.int64(-1)'),
         ('powered', 'np.array([1.0, 200.0]), -1'),
         ('np_powered', 'np.array([1, 2]), -1'),
         ('np_powered', 'np.array([1.0, 200.0]), 0.5'),
         ('less', 'np.array([True, False]), True'),
         ('less', 'np.array([1.0, 200.0]), 2.0'),
         ('floored', 'np.array([1.0, 2.0]), 1j'),
         ('floored', 'np.array([1.0, 200.0]), 7.0'),
         ('shifted', 'np.array([1, 2]), 1.5'),
         ('shifted', 'np.array([1, 200]), 2')]

REWRITTEN = ['added', 'floored', 'largest', 'less', 'np_powered', 'powered', 'shifted']
