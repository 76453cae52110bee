import numpy as np

# Fuzz seeds 8190601 and 8192463 (session 21), both on the first draws with a longer trip
# count the fuzzer now makes. `s = np.logaddexp(s, -i)` over Python ints is a NumPy float64
# after one iteration, but a loop of none leaves the Python float start: the batched code
# runs only where the loop does. And `s = m[i][..., -1]` on the first iteration, then
# `s = s * m[i][..., -1]`: one iteration leaves a 0-d array (an ellipsis index is a view), two
# a NumPy number, which no single batched product gives; that loop stays.

def log_partition(x):
    s = -np.inf
    for i in range(len(x) - 1):
        s = np.logaddexp(s, -i)
    return s


def product_of_last_column(x, m):
    s = 0.5
    for i in range(len(x)):
        if i == 0:
            s = m[i][..., -1]
        else:
            s = s * (m[i][..., -1])
    return s


SHAPES = {"x": 1, "m": 2}

CALLS = [('log_partition', 'np.zeros(0)'),
         ('log_partition', 'np.zeros(1)'),
         ('log_partition', 'np.zeros(6)'),
         ('product_of_last_column', 'np.zeros(1), np.full((1, 2), 3.0)'),
         ('product_of_last_column', 'np.zeros(3), np.full((3, 2), 3.0)')]

REWRITTEN = ('log_partition',)
