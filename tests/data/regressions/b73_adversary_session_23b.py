import numpy as np

# helper-41 (session 23): a length read before the loop (`n = len(a)`, `n, d = x.shape`) was
# taken as the length where the loop starts, though `a` was bound again in between (`a = b`)
# or `x` reshaped through another name (`y = x; y.shape = ...`): `range(n)` then "visited
# every row" of an array of another length, and the bound check was dropped. The array must
# now keep its shape throughout the function (bound once, a parameter or a new array, and
# mentioned only to read or write elements, or to be measured).


def rebound(a, b):
    n = len(a)
    a = b
    s = 0.0
    for i in range(n):
        s += a[i]
    return s


def reshaped_through_an_alias(x):
    n, d = x.shape
    y = x
    y.shape = (d, n)
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i, 0] * 2
    return out


SHAPES = {"a": 1, "b": 1, "x": 2}

CALLS = [('rebound', 'np.array([0.4196]), np.array([-2.1427, 1.4464])'),
         ('rebound', 'np.array([0.5, 1.5, 2.5]), np.array([1.0, 2.0, 3.0, 4.0])'),
         ('reshaped_through_an_alias', 'np.arange(6.0).reshape(2, 3)')]

REWRITTEN = ['rebound', 'reshaped_through_an_alias']
