import numpy as np

# An element at a fixed index (`m[..., 0]`, `m[i, 0]`, `w[0]`) raises where that axis is empty;
# the loop reads it only when it runs, so the batched code runs only where the loop runs at
# least once (fuzz seeds 3600860, 3601257, 3601384: a (0, 0) matrix and no iteration).


def first_column_sum(x, m):
    s = 0.0
    for i in range(1, len(x)):
        s = m[..., 0][i] + s
    return s


def scaled_first_column(x, m, c):
    out = np.zeros(len(x))
    for i in reversed(range(len(x))):
        out[i] = -c * m[i, ..., 0]
    return out


def times_first(x, w):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * w[0]
    return out


CALLS = [("first_column_sum", "np.zeros(0), np.zeros((0, 0))"), ("first_column_sum", "np.ones(3), np.eye(3)"),
         ("scaled_first_column", "np.zeros(0), np.zeros((0, 0)), 2.0"),
         ("scaled_first_column", "np.ones(3), np.arange(9.0).reshape(3, 3), 2.0"),
         ("times_first", "np.zeros(0), np.zeros(0)"), ("times_first", "np.arange(3.0), np.array([2.0])")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('first_column_sum', 'scaled_first_column', 'times_first')
