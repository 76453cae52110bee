import numpy as np

# Fragment fuzz seed 8020676: a running value started at a Python float and stepped by terms
# that are Python numbers where an invariant scalar is one (`s - (c - i)` with `c` a float)
# ended as `s_steps[-1]`, a NumPy float64, where the loop leaves a Python float; with `c` a
# NumPy float64 the loop's is one too. Fragment fuzz seed 8021330: the same with one term for
# every iteration (`s = -c + s`).

def running_offsets(x, c):
    s = 1.5
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = s
        s = s - (c - i)
    return out, s


def running_products(x, c):
    p = 2.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        p = p * (c + i)
        out[i] = p
    return out, p


def invariant_steps(x, c):
    s = 0.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = s
        s = -c + s
    return out, s


CALLS = [('invariant_steps', 'np.ones(3), 0.5'),
         ('invariant_steps', 'np.ones(3), np.float64(0.5)'),
         ('running_offsets', 'np.ones(4), 0.5'),
         ('running_offsets', 'np.ones(4), np.float64(0.5)'),
         ('running_offsets', 'np.ones(3), 2'),
         ('running_products', 'np.ones(4), 0.5'),
         ('running_products', 'np.ones(4), np.float64(0.5)')]

REWRITTEN = ('running_offsets', 'running_products', 'invariant_steps')
