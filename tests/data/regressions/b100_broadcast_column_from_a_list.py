import numpy as np

# Session 35, on the shared case of a column vector added to each column of a matrix
# (`mat[:, col] += colvec`) with no annotations: the guard admitted a list of floats for
# `colvec` (it is only read), but the batched code spreads it across the loop axis as
# `colvec[:, np.newaxis]`, which a list refuses with TypeError where the loop adds it. A value
# the batched code subscripts to spread it must be an array; a list runs the loop.


def add_column(mat, colvec):
    n_cols = mat.shape[1]
    for col in range(n_cols):
        mat[:, col] += colvec
    return mat


def add_local_column(mat):
    colvec = [1.0, 2.0, 3.0]
    for col in range(mat.shape[1]):
        mat[:, col] += colvec
    return mat


CALLS = [('add_column', 'np.zeros((3, 2)), [1.0, 2.0, 3.0]'),
         ('add_column', 'np.zeros((3, 2)), [np.float64(1.0), 2.0, 3.0]'),
         ('add_column', 'np.zeros((3, 4)), np.arange(3.0)'),
         ('add_column', 'np.zeros((3, 0)), [1.0, 2.0, 3.0]'),
         ('add_local_column', 'np.zeros((3, 2))'),
         ('add_local_column', 'np.ones((3, 5))')]

REWRITTEN = ('add_column', 'add_local_column')
