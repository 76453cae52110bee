import numpy as np

# session 29, fuzz seed 8292928: a scattered update (`o[i] += 1`) under a test in a sequential
# inner loop checks in front that its indices are no bools (`np.asarray(k).dtype != np.bool_`),
# for each name they read that the batched code has not bound. The outer loop's index `i` was
# bound in front of the inner loop, in the outer level's statements, so the check read `i`
# before any statement bound it: UnboundLocalError on every call. Loop indices are ints the
# batched code binds; they need no check.


def counts_below(x, y):
    low = np.zeros(len(x))
    out = np.zeros(len(x))
    for i in reversed(range(1, len(x) - 1)):
        low[i] = np.minimum(i, x[i - 1])
        m = x[i]
        for j in range(len(y)):
            d = y[j] + 0.5 * x[i]
            if d <= m:
                m = d
                out[i] += 1
            else:
                m = m * 0.5
    return low, out


CALLS = [('counts_below', 'np.array([1.0, -2.0, 3.0, 0.25]), np.array([0.5, -1.0])'),
         ('counts_below', 'np.zeros(0), np.array([0.5])')]

REWRITTEN = ['counts_below']
