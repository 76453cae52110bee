import numpy as np

# Wrong rewrites an adversarial tester found in session 16: `out[idx[i]] += w[i]` with bool indices: the loop's `out[np.True_] += w` adds to every element
# (a bool scalar index is a new axis), `np.add.at` takes bools as a mask. A scatter's index
# arrays are now checked not to be bools.

def scat_add(idx, w, out):
    for i in range(len(idx)):
        out[idx[i]] += w[i]
    return out


CALLS = [('scat_add', 'np.array([True, True]), np.array([1.0, 2.0]), np.zeros(2)'),
         ('scat_add', 'np.array([True, False, True]), np.array([1.0, 2.0, 3.0]), np.zeros(3)')]

REWRITTEN = ('scat_add',)
