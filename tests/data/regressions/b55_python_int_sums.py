import numpy as np

# Wrong rewrites an adversarial tester found in session 16: `n += int(v)` adds Python ints, exactly; batched as an int64 sum it wrapped past 2**63, and
# values past int64 (an object array) met `.item()`. Python-int terms are summed as objects.

def sum_int(x):
    n = 0
    for v in x:
        n += int(v)
    return n


CALLS = [('sum_int', 'np.array([2**62, 2**62])'),
         ('sum_int', 'np.array([1e300])')]

REWRITTEN = ('sum_int',)
