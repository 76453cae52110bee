"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/gradient_check.py (function `eval_numerical_gradient_array`, lines 39-58)
Project: 0809zheng/CS231n-assignment2019
Description: Centred finite-difference gradient of an array-valued function against an upstream gradient: nudge each entry of x in place, evaluate, restore, and store the upstream-weighted sum of the output difference.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "every iteration writes x in place before calling f on the whole array, and the loop is driven by a stateful nditer (while not it.finished)",
}
TOL = {"rtol": 1e-6, "atol": 1e-6}


def affine(x, w, b):
    return x.dot(w) + b


def original(f, x, up, h=1e-5):
    g = np.zeros_like(x)
    it = np.nditer(x, flags=['multi_index'], op_flags=['readwrite'])
    while not it.finished:
        ix = it.multi_index

        old = x[ix]
        x[ix] = old + h
        hi = f(x).copy()
        x[ix] = old - h
        lo = f(x).copy()
        x[ix] = old

        g[ix] = np.sum((hi - lo) * up) / (2 * h)
        it.iternext()
    return g


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 5))
    w = rng.standard_normal((5, 3))
    b = rng.standard_normal(3)
    up = rng.standard_normal((4, 3))
    return (lambda v: affine(v, w, b), x, up)
