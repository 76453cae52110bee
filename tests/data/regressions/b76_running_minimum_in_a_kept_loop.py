import numpy as np

# helper-43 (session 24): a running minimum (or maximum) an inner loop keeps as a loop, private to
# each iteration of the vectorized outer loop (`m = np.inf` in its body) and updated under a test
# on it (`if d < m: m = d; out[i] = j`). The if-conversion took `m` for a name local to the branch
# (nothing in the outer body reads it outside the `if`) and never merged it: `m` stayed inf, and
# every `out[i]` was the last `j`. The inner loop reads it again in its next iteration. Also a list
# comprehension over `range(n)` with `n = x.shape[0]`, where no loop statement encloses the
# comprehension: the shape-fact check crashed the transpiler.


def nearest_index(a, b):
    out = np.zeros(len(a), dtype=int)
    for i in range(len(a)):
        m = np.inf
        for j in range(len(b)):
            d = abs(a[i] - b[j])
            if d < m:
                m = d
                out[i] = j
    return out


def nearest_row(X, Y):
    best = np.zeros(X.shape[0], dtype=int)
    for i in range(X.shape[0]):
        bd = np.inf
        for j in range(Y.shape[0]):
            d = np.sum((X[i] - Y[j]) ** 2)
            if d < bd:
                bd = d
                best[i] = j
    return best


def records(a, b):
    out = np.zeros(len(a))
    for i in range(len(a)):
        m = -np.inf
        for j in range(len(b)):
            p = a[i] * b[j]
            if p > m:
                m = p
                out[i] += 1
    return out


def shifted(x):
    n = x.shape[0]
    y = np.array([x[i] + 1.0 for i in range(n)])
    return y


CALLS = [('nearest_index', 'np.array([0.0, 5.0, 9.0]), np.array([10.0, 4.0, 1.0, 6.0])'),
         ('nearest_index', 'np.array([3, -2]), np.array([7, -1, 2])'),
         ('nearest_index', 'np.array([1.5]), np.array([])'),
         ('nearest_row', 'np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 1.0]]), np.array([[9.0, 0.0], [4.0, 4.0], [0.0, 1.0]])'),
         ('records', 'np.array([1.0, -2.0, 0.5]), np.array([1.0, 3.0, 2.0, 5.0, -1.0])'),
         ('shifted', 'np.array([1.0, 2.0, 3.0])'),
         ('shifted', 'np.arange(6.0).reshape(3, 2)'),
         ('shifted', 'np.zeros(0)')]

REWRITTEN = ['nearest_index', 'nearest_row', 'records', 'shifted']
