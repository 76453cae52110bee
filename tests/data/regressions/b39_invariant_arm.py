import numpy as np

# Wrong rewrites found in session 14 by an adversarial tester: a conditional expression with
# an invariant test and one invariant arm (`x[i] if flag else BIG`) was batched as Python's
# conditional of the batched arms, so where the invariant arm is taken the batched value was
# one number, not one per iteration: a collected list became a 0-d array, a sum one term.
# Such a conditional runs the loop now; one of two per-iteration arms is still rewritten.

BIG = 300
HALF = 0.5


def collected(x, flag):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if flag else BIG)
    return np.array(out)


def summed(x, flag):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] if flag else HALF
    return s


def summed_parameter(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 2.0 if c > 0.5 else c
    return s


def both_arms_vary(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 2.0 if c > 0.5 else x[i] - 1.0
    return s


CALLS = [("collected", "np.array([1.5, -2.5, 7.0]), False"), ("collected", "np.array([1.5, -2.5, 7.0]), True"),
         ("summed", "np.array([1.5, -2.5, 7.0, 4.0]), False"), ("summed", "np.array([1.5, -2.5]), True"),
         ("summed_parameter", "np.array([1.5, -2.5, 7.0]), 0.25"),
         ("summed_parameter", "np.array([1.5, -2.5, 7.0]), 0.75"),
         ("both_arms_vary", "np.array([1.5, -2.5, 7.0]), 0.25"), ("both_arms_vary", "np.array([1.5, 7.0]), 0.75")]

REWRITTEN = ("both_arms_vary",)
