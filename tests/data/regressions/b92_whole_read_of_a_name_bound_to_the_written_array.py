import numpy as np

# session 33: a name the body reads whole (`np.sum(w)`, `X[i] - r0`) had no access in the
# dependence test, so where it was bound before the loop to the array the loop writes, or to a
# view of it, the loop was called a map: `r0 = X[0]` then `X[i] = X[i] - r0` subtracted the
# original first row from every row, where the loop subtracts a first row it has already zeroed.
# The same array read whole (`w = X`) and a view whatever the ranks (a slice, `...`, `.T`) are
# now refused; an element selection (`x0 = x[0]`) is a copy where its rank is 0 and is still
# rewritten, a row is refused.


def same_array(X):
    w = X
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(w)
    return X


def slice_view(X):
    w = X[1:]
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(w)
    return X


def transposed(X):
    w = X.T
    for i in range(X.shape[0]):
        X[i] = X[i] * w[0, 0] + w.sum()
    return X


def zero_d_view(X):
    w = X[0, 0, ...]
    for i in range(X.shape[0]):
        X[i] = X[i] * w + 1.0
    return X


def first_row(X):
    r0 = X[0]
    for i in range(X.shape[0]):
        X[i] = X[i] - r0
    return X


def first_element(x):
    x0 = x[0]
    for i in range(len(x)):
        x[i] = x[i] - x0
    return x


def corner_through_a_row(X):
    r = X[0]
    c = r[0]
    for i in range(X.shape[0]):
        X[i] = X[i] / c
    return X


SHAPES = {"X": 2, "x": 1}

CALLS = [('same_array', 'np.ones((3, 2))'),
         ('slice_view', 'np.arange(6.0).reshape(3, 2)'),
         ('transposed', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('zero_d_view', 'np.full((3, 2), 2.0)'),
         ('first_row', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('first_element', 'np.array([2.0, 3.0, 5.0])'),
         ('corner_through_a_row', 'np.arange(2.0, 8.0).reshape(3, 2)')]

REWRITTEN = ['first_element', 'corner_through_a_row']
