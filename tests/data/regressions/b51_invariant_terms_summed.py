import numpy as np

# A wrong rewrite the fuzzer found (seed 7024969) once its oracle compared the types of returned
# numbers: a sum under a test of a term that is the same on every iteration (`q += c + 1.5`) is a
# Python float in the loop where `c` is a Python number, and was a NumPy float64 batched. The
# sum now comes back as a Python number where the term is one (`.item()`), as a NumPy scalar
# where it is one.

def skipped_total(x, c):
    q = 1.0
    for i in range(len(x)):
        if x[i] > 0.5:
            continue
        q = (c + 1.5) + q
    return q


def counted(x, w):
    n = 0
    for i in range(len(x)):
        if x[i] < 0:
            n += w
    return n


CALLS = [("skipped_total", "np.array([0.1, 0.9, -2.0]), 2.0"), ("skipped_total", "np.array([0.1, 0.2]), np.float64(2.0)"),
         ("skipped_total", "np.array([0.1, 0.2]), 3"), ("skipped_total", "np.array([0.9]), 2.0"),
         ("counted", "np.array([-1.0, 2.0, -3.0]), 2"), ("counted", "np.array([-1.0, -3.0]), 0.5"),
         ("counted", "np.array([-1.0, -3.0]), np.int64(4)"), ("counted", "np.array([-1.0, -3.0]), True")]

REWRITTEN = ("skipped_total", "counted")
