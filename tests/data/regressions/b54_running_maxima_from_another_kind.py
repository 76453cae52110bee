import numpy as np

# Wrong rewrites an adversarial tester found in session 16: `m = np.maximum(m, v)` batched as `np.max(x, initial=m)` cast `initial` to x's dtype (bool(-inf)
# is True, -inf into int8 raises), where np.maximum promotes. The batched code runs only where
# the loop does, so `initial` is gone.

def npmax(x):
    m = -np.inf
    for v in x:
        m = np.maximum(m, v)
    return m


def npmax_int_start(x):
    m = -1
    for v in x:
        m = np.maximum(m, v)
    return m


CALLS = [('npmax', 'np.array([False, False])'),
         ('npmax', 'np.array([1, 2], np.int8)'),
         ('npmax_int_start', 'np.array([False, False])')]

REWRITTEN = ('npmax', 'npmax_int_start')
