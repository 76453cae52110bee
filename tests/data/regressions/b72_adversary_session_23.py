import numpy as np

# helper-40 (session 23), against triangular ranges, shape facts and the symbolic dependence test:
# - `m[i, i]` beside `m[i, j]` in `for j in range(i)`: the pair never meets in two iterations, but
#   `m[i, i]` meets itself in every one (an output dependence); each write is now tested against
#   itself too (`diagonal`);
# - `n, d = x.shape` under an `if`, in a nested function, before `x.shape = ...` or a `match`
#   capture: `range(n)` was taken to visit every row of `x` (`unpacked_in_a_branch`,
#   `reshaped_in_place`);
# - a check that reads an element (`d[i + 1, i + 1]`) ran before the test that the inner loop
#   runs, and raised IndexError at `i = n - 1` (`diagonal_read`);
# - `x[i, j]` over `range(i + 1)` read `x[:, :j_stop]` with no check that `x` has `n` columns:
#   `np.tril` of a narrower block broadcast across the row (`narrow_source`); in a deeper
#   triangle the check named `j_stop` before it was bound (`pyramid`), and `m[i, j + 1]` lost
#   its check (`shifted_column`).


def diagonal(a, n):
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(i):
            m[i, j] = a[j]
            m[i, i] = a[i]
    return m


def unpacked_in_a_branch(x, n, flag):
    if flag:
        n, d = x.shape
    s = 0.0
    for i in range(n):
        s += x[i, 0]
    return s


def reshaped_in_place(x):
    n, d = x.shape
    x.shape = (d, n)
    s = 0.0
    for i in range(n):
        s += x[i, 0]
    return s


def diagonal_read(d, a, n):
    for i in range(n):
        for j in range(i + 1, n):
            d[i, j] = a[j]
            d[j, i] = d[i + 1, i + 1] + j
    return d


def narrow_source(x):
    n = x.shape[0]
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            m[i, j] = x[i, j]
    return m


def pyramid(a, n):
    m = np.zeros((n, n, n))
    for i in range(n):
        for j in range(i + 1):
            for k in range(j + 1):
                m[i, j, k] = a[i] + a[j] * a[k]
    return m


def shifted_column(a, n):
    m = np.zeros((n, n + 1))
    for i in range(n):
        for j in range(i + 1):
            m[i, j + 1] = a[i] * a[j]
    return m


SHAPES = {"a": 1, "x": 2, "d": 2}

CALLS = [('diagonal', 'np.array([1.0, 2.0]), 2'), ('diagonal', 'np.arange(4.0), 4'),
         ('unpacked_in_a_branch', 'np.array([[1.0], [2.0], [3.0]]), 2, False'),
         ('unpacked_in_a_branch', 'np.array([[1.0], [2.0], [3.0]]), 2, True'),
         ('reshaped_in_place', 'np.arange(6.0).reshape(2, 3)'),
         ('diagonal_read', 'np.ones((3, 3)), np.arange(3.0), 3'),
         ('narrow_source', 'np.arange(9.0).reshape(3, 3)'),
         ('pyramid', 'np.arange(4.0), 4'), ('pyramid', 'np.zeros(0), 0'),
         ('shifted_column', 'np.arange(3.0), 3')]

REWRITTEN = ['unpacked_in_a_branch', 'reshaped_in_place', 'diagonal_read', 'narrow_source', 'pyramid',
             'shifted_column']
