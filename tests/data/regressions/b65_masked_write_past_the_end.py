import numpy as np

# Adversary helper-35 (session 19): a write under a per-iteration test was batched as
# `b[i + 2] = np.where(m, new, b[i + 2])`, reading and writing every index, where the loop
# writes only where the test holds (`range(n - 2, 1, -1)`: `b[n]` is never touched when `d[n - 2]`
# is odd): it raised IndexError where the loop returns. The positions and values where the
# test holds are now scattered.

def masked_past_the_end(b, d):
    n = len(b)
    for i in range(n - 2, 1, -1):
        if d[i] % 2 == 0:
            b[i + 2] = b[i + 2] + d[i] + 1
    return b


CALLS = [('masked_past_the_end', 'np.arange(9), np.array([0, 2, 4, 6, 8, 10, 12, 7, 9])'),
         ('masked_past_the_end', 'np.arange(9), np.arange(9) * 2'),
         ('masked_past_the_end', 'np.arange(5), np.arange(5) + 1')]

REWRITTEN = ('masked_past_the_end',)
