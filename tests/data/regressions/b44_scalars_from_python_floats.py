import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: a scalar the loop computes from a
# list of Python floats (a sum, a max taken by `if`, an argmax's value) is a Python float in the
# loop and was a NumPy float64 batched (collected values come back as Python numbers, by
# `tolist`, but these did not). A list the batched code converts now runs the loop where the
# loop binds a name read after it; arrays are still rewritten.

def doubled_sum(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * 2
    return s


def largest(x):
    m = -1
    for v in x:
        if v > m:
            m = v
    return m


def best(x):
    top = -1.0
    at = -1
    for i in range(len(x)):
        if x[i] > top:
            top = x[i]
            at = i
    return top, at


def scaled(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * 0.5
    return out


CALLS = [("doubled_sum", "[0.5, 1.5]"), ("doubled_sum", "np.array([0.5, 1.5])"), ("largest", "[0.5, 3.5, 2.0]"),
         ("largest", "np.array([0.5, 3.5, 2.0])"), ("best", "[0.5, 3.5, 2.0]"), ("best", "np.array([0.5, 3.5])"),
         ("scaled", "[1.0, 2.0]")]

REWRITTEN = ("doubled_sum", "largest", "best", "scaled")
