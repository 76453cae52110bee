import numpy as np

# session 33, adversarial review (helper-54): a name an inner loop binds on every iteration and
# the outer loop's body reads after it (`w = A[i, j]` in the inner loop, `v[i] = w` after it)
# holds the inner loop's last value there; the batched outer loop read the whole row of values
# instead (a broadcast error, or silently the flattened rows in a collector or a sum). The outer
# loop is now left (where the inner loop is rewritten alone, its last value is taken).


def last_of_each_row(A, v):
    for i in range(A.shape[0]):
        w = 0.0
        for j in range(A.shape[1]):
            w = A[i, j]
        v[i] = w
    return v


def last_collected(A):
    out = []
    for i in range(A.shape[0]):
        w = 0.0
        for j in range(A.shape[1]):
            w = A[i, j] * 2.0
        out.append(w)
    return np.array(out)


def last_summed(A):
    s = 0.0
    for i in range(A.shape[0]):
        w = 0.0
        for j in range(A.shape[1]):
            w = A[i, j]
        s += w
    return s


SHAPES = {"A": 2, "v": 1}

CALLS = [('last_of_each_row', 'np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]), np.zeros(2)'),
         ('last_of_each_row', 'np.zeros((2, 0)), np.ones(2)'),
         ('last_collected', 'np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])'),
         ('last_summed', 'np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])')]

REWRITTEN = ['last_collected']
