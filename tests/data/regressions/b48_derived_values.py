import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: a derived induction variable read
# as a value (`j += 1; out[i] = x[i] * j`) was batched as an int64 array, where in the loop the
# Python int `j` is weak beside `x[i]` (NEP 50): int8 products wrap in int8, float32 ones round
# in float32. It is now cast to `np.result_type(x, 0)` as the loop index is.

def weighted(x, out):
    j = 0
    for i in range(len(x)):
        j += 1
        out[i] = x[i] * j
    return out


def collected(x):
    out = []
    k = 10
    for i in range(len(x)):
        k -= 1
        out.append(x[i] * k)
    return out


CALLS = [("weighted", "np.array([100, 100, 100], np.int8), np.zeros(3)"),
         ("weighted", "np.array([0.1, 0.2, 0.3], np.float32), np.zeros(3)"),
         ("weighted", "np.array([0.1, 0.2]), np.zeros(2)"),
         ("collected", "np.array([100, 100], np.int8)"), ("collected", "np.array([0.1, 0.2], np.float32)")]

REWRITTEN = ("weighted", "collected")
