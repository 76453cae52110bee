import numpy as np

# helper-39 (session 22), against the contractions (a sum of a product as np.einsum) and
# what it found beside them:
# - `a @ b.T` for two matrices raised where a summed axis has length 1 (`(1,) * (5,)`
#   broadcasts in the loop): two operands are now `np.einsum(..., optimize=True)`;
# - three factors of float32 and float64 rows: the loop rounds `x * y` to float32 before the
#   float64 `z` joins, einsum converted all three first: one dtype is now checked in front;
# - `x[i, j] = np.sum(x[i + 1] * y[j])`: with the inner loop kept a loop, the batched code
#   runs it outermost, and its read at `j` saw what `j - 1` stored for every row (loop
#   interchange reversing a (<, >) anti-dependence); the read now takes a copy made before;
# - `for j in range(n - i)` with `xs[i + j]`: the int64 check in front read `j_stop`, which
#   the batched code binds after it (UnboundLocalError on every call).


def pairs(xs, ys):
    g = np.zeros((xs.shape[0], ys.shape[0]))
    for a in range(xs.shape[0]):
        for b in range(ys.shape[0]):
            g[a, b] = np.sum(xs[a] * ys[b])
    return g


def triple(xs, ys, zs):
    out = np.empty((xs.shape[0], ys.shape[0], zs.shape[0]))
    for a in range(xs.shape[0]):
        for b in range(ys.shape[0]):
            for c in range(zs.shape[0]):
                out[a, b, c] = np.sum(xs[a] * ys[b] * zs[c])
    return out


def shifted_rows(x, y):
    for i in range(x.shape[0] - 1):
        for j in range(y.shape[0]):
            x[i, j] = np.sum(x[i + 1] * y[j])
    return x


def diagonals(xs, ys, n):
    g = np.zeros((n, n))
    for i in range(n):
        for j in range(n - i):
            g[i, j] = np.sum(xs[i + j] * ys[j])
    return g


SHAPES = {"xs": 2, "ys": 2, "zs": 2, "x": 2, "y": 2}

CALLS = [('pairs', 'np.arange(3.0).reshape(3, 1), np.ones((4, 5))'),
         ('pairs', 'np.arange(15.0).reshape(3, 5), np.ones((4, 1))'),
         ('pairs', 'np.arange(15.0).reshape(3, 5), np.arange(20.0).reshape(4, 5)'),
         ('triple', 'np.array([[0.1, 0.7]], np.float32), np.array([[0.3, 0.9]], np.float32), np.array([[1 / 3, 1 / 7]])'),
         ('triple', 'np.array([[0.1, 0.7]]), np.array([[0.3, 0.9]]), np.array([[1 / 3, 1 / 7]])'),
         ('shifted_rows', 'np.arange(16.0).reshape(4, 4) / 7, np.arange(12.0).reshape(3, 4) / 5'),
         ('diagonals', 'np.arange(27.0).reshape(9, 3), np.arange(15.0).reshape(5, 3), 5'),
         ('diagonals', 'np.ones((2, 3)), np.ones((2, 3)), 0')]

REWRITTEN = ('pairs', 'triple', 'shifted_rows', 'diagonals')
