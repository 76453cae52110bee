import numpy as np

# helper-59 (session 35), after the chained-subscript fix: a dict indexed by the loop
# (`t += x[i]` with `x = {0: 1.0, 1: 2.0}`) raised IndexError in the guard itself: the bound
# check `n <= np.shape(x)[0]` ran before `type(x) is np.ndarray`, and the shape of a dict is `()`.
# A type test of a name now runs before the first other check that reads the name. A list
# comprehension's rewrite (`np.array([x[i] for i in range(n)])`) read `np.asarray(x)[:n]` with no
# test of `x`'s kind at all: a dict (or a string) raised, and a list whose later items are of another
# type (`[1, 2, 'a']`, `n = 2`) converted to strings where the loop's two ints stay ints. Only an
# array computes as the loop does there; every other kind runs the loop.


def total(x, n):
    t = 0.0
    for i in range(n):
        t += x[i]
    return t


def nested_total(Q, m, n):
    t = 0.0
    for k in range(m):
        for i in range(n):
            t += Q[k][i]
    return t


def prefix(x, n):
    return np.array([x[i] for i in range(n)])


CALLS = [('total', '{0: 1.0, 1: 2.0}, 2'),
         ('total', 'np.arange(3.0), 2'),
         ('total', '{}, 0'),
         ('nested_total', '{0: {0: 1.0, 1: 2.0}, 1: {0: 3.0, 1: 4.0}}, 2, 2'),
         ('nested_total', 'np.arange(6.0).reshape(2, 3), 2, 3'),
         ('prefix', '{0: 1.0, 1: 2.0}, 2'),
         ('prefix', 'range(5), 2'),
         ('prefix', '[1, 2, "a"], 2'),
         ('prefix', '[1.0, 2.0, 3.0], 3'),
         ('prefix', 'np.arange(4.0), 3')]

REWRITTEN = ('total', 'nested_total', 'prefix')
