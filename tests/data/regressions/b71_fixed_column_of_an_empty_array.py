import numpy as np

# Session 23: `m[i, 0] = v` over `range(n)` into `np.zeros((n, n))` wrote `m[:n, 0]` where the
# loop runs no iteration (n = 0), and axis 1 of `m` is empty: IndexError where the loop does
# nothing. A write at a fixed index now needs the levels around it to run (a read at a fixed
# index already did); in a triangular nest the outer level's write needs only the outer level.


def first_column(a):
    n = len(a)
    m = np.zeros((n, n))
    for i in range(n):
        m[i, 0] = a[i] * 2.0
    return m


def first_column_and_triangle(a, b):
    n = len(a)
    m = np.zeros((n, n))
    for i in range(n):
        m[i, 0] = 7.0
        for j in range(i):
            m[i, j] = a[i] * b[j]
    return m


SHAPES = {"a": 1, "b": 1}

CALLS = [('first_column', 'np.zeros(0)'), ('first_column', 'np.arange(3.0)'),
         ('first_column_and_triangle', 'np.zeros(0), np.zeros(0)'),
         ('first_column_and_triangle', 'np.arange(4.0), np.arange(5.0)')]

REWRITTEN = ['first_column', 'first_column_and_triangle']
