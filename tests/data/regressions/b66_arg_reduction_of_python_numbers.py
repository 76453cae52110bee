import numpy as np

# Fuzz seed 8148629 (session 19): argmin tracking whose terms are `c + i`, a Python float `c`
# plus the loop index, took the extreme as a NumPy float64 (`terms[at]`) where the loop's is
# the Python float it computed. The value taken is now a Python number where the invariant
# its terms are made from is one, a NumPy scalar where that is one.

def lowest_offset(x, c):
    best = 1e9
    at = -1
    for i in range(len(x)):
        v = (c + i)
        if v <= best:
            best = v
            at = i
    return best, at


def highest_with_value(x, c):
    best = -1e9
    w = 0.0
    for i in range(len(x)):
        if c * i > best:
            best = c * i
            w = c - i
    return best, w


CALLS = [('lowest_offset', 'np.ones(1), 0.5'),
         ('lowest_offset', 'np.ones(4), -2.0'),
         ('lowest_offset', 'np.ones(4), np.float64(1.5)'),
         ('lowest_offset', 'np.ones(3), np.float32(1.5)'),
         ('highest_with_value', 'np.ones(5), 0.25'),
         ('highest_with_value', 'np.ones(5), np.float64(-1.0)')]

REWRITTEN = ('lowest_offset', 'highest_with_value')
