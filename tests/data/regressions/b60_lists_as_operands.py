import numpy as np

# Wrong rewrites adversary helper-33 found in session 17, on plain loops too: a Python list that
# is itself an operand (`x * c` repeats the list, `x + y` concatenates) was taken as an array
# where the check in front allowed a flat list of floats; the batched code computed elementwise
# or raised (`np.result_type` of a list). Such a name must now be an array.

def scaled_sums(x, k):
    out = np.zeros(k)
    for c in range(k):
        out[c] = np.sum(x * c)
    return out


def row_spreads(X, k):
    out = []
    for x in X:
        lp = [np.sum(x * c) for c in range(k)]
        out.append(np.min(lp) - np.max(lp))
    return np.array(out)


CALLS = [('scaled_sums', '[1.0, 2.0], 3'),
         ('scaled_sums', 'np.array([1.0, 2.0]), 3'),
         ('row_spreads', '[[1.0, 2.0]], 3'),
         ('row_spreads', 'np.array([[1.0, 2.0], [0.5, -1.0]]), 3')]

REWRITTEN = ('scaled_sums', 'row_spreads')
