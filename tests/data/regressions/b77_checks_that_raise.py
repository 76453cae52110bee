import numpy as np

# helper-43 (session 24): checks in front of a loop that compute what the loop computes only under
# a per-iteration test raised themselves: `k + 1000` of a NumPy uint8 `k` (OverflowError: NumPy
# raises for a Python int its dtype cannot hold), in `type(k + 1000) is not int or ...`, in a
# bounds check of `w[k + 1000]` and in `n - m != 0`; and `w.sum()` of a list the checks admit
# (AttributeError) where no element passed the test and the loop returned.


def offset(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + (k + 1000)
    return out


def divided(a, n, m):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * 2 // (n - m)
    return out


def picked(a, w, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + w[k + 1000]
    return out


def total(a, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + w.sum()
    return out


CALLS = [('offset', 'np.array([1.0, 2.0]), np.uint8(5)'),
         ('offset', 'np.array([1.0, 200.0]), 5'),
         ('offset', 'np.array([1.0, 200.0]), np.int64(5)'),
         ('divided', 'np.array([1, 2]), np.uint8(5), -1'),
         ('divided', 'np.array([1, 200]), 7, 2'),
         ('picked', 'np.array([1.0, 2.0]), np.ones(3), np.uint8(5)'),
         ('picked', 'np.array([1.0, 200.0]), np.arange(1200.0), 3'),
         ('total', 'np.array([1.0, 2.0]), [1.0, 2.0]'),
         ('total', 'np.array([1.0, 200.0]), np.array([1.0, 2.0])')]

REWRITTEN = ['divided', 'offset', 'picked', 'total']
