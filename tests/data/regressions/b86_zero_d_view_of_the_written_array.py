import numpy as np

# session 30, adversarial review (helper-49): a number read by every iteration may be a 0-d
# array that views an element the loop writes (`upd(X, X[0, 0, ...])`): the loop reads it
# again after writing row 0, the batched code read it once. The checks in front accepted any
# 0-d value; one that shares memory with the array written now runs the loop.


def upd(X, w):
    for i in range(X.shape[0]):
        X[i] = X[i] * w + 1.0
    return X


CALLS = [('upd', '*(lambda X: (X, X[0, 0, ...]))(np.ones((3, 2)))'),
         ('upd', 'np.ones((3, 2)), np.array(2.0)'),
         ('upd', 'np.ones((3, 2)), 0.5')]

REWRITTEN = ['upd']
