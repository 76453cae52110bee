import numpy as np

# Fuzz seed 8194988 (session 21, a trip count of 39): `a *= w[i, j]` from `a = 0.0` over
# uint64 terms near 2 ** 64 stays 0.0 in the loop, but `a * np.prod(w, axis=1)` multiplied
# the terms first, overflowed to inf, and gave 0.0 * inf = nan. A product from a start that
# is one number is now `np.prod(t, axis, initial=s)`, which NumPy multiplies in the loop's
# order: the loop's own products, bit for bit.

def row_products(x, m):
    w = (np.asarray(m) * 90).astype(np.uint64)
    out = np.zeros(len(x))
    for i in range(len(x)):
        a = 0.0
        for j in range(w.shape[1]):
            a *= w[i, j]
        out[i] = a
    return out


def running_product(x):
    s = 1e-300
    for i in range(len(x)):
        s *= x[i]
    return s


SHAPES = {"x": 1, "m": 2}

CALLS = [('row_products', 'np.zeros(39), -np.ones((39, 39))'),
         ('row_products', 'np.zeros(3), np.ones((3, 4))'),
         ('running_product', 'np.array([1e300, 1e300, 1e-300, 1e-10])'),
         ('running_product', 'np.zeros(0)')]

REWRITTEN = ('row_products', 'running_product')
