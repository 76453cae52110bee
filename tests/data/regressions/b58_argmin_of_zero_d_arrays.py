import numpy as np

# A wrong rewrite the fuzzer found in session 17 (seed 8105900), reachable once a masked write
# into an array of the iteration was batched: `v = m2[..., i, 0]` indexes with an Ellipsis, so
# each `v` is a 0-d array, which the loop keeps as the minimum; an element of the batched terms
# is a NumPy scalar. Such argmin tracking stays a loop; over `m2[i, 0]` (a scalar) it is batched.

def argmin_of_views(m2, c):
    best = 1e9
    at = -1
    for i in range(len(m2)):
        v = m2[..., i, 0]
        if v < best:
            best = v
            at = i
    return best, at


def argmin_of_elements(m2, c):
    best = 1e9
    at = -1
    for i in range(len(m2)):
        v = m2[i, 0]
        if v < best:
            best = v
            at = i
    return best, at


CALLS = [('argmin_of_views', 'np.array([[0.5, 1.0], [-2.0, 3.0]]), 0.5'),
         ('argmin_of_elements', 'np.array([[0.5, 1.0], [-2.0, 3.0]]), 0.5'),
         ('argmin_of_views', 'np.array([[0.5, 1.0], [-2.0, 3.0]], dtype=np.float32), 0.5')]

REWRITTEN = ('argmin_of_elements',)
