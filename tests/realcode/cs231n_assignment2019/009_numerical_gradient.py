"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/gradient_check.py (function `eval_numerical_gradient`, lines 8-36)
Project: 0809zheng/CS231n-assignment2019
Description: Centred finite-difference gradient of a scalar function: walk every index of x with nditer, nudge that entry up and down in place, evaluate the function, restore the entry and store the slope.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "every iteration writes x in place before calling f on the whole array, the loop is driven by a stateful nditer (while not it.finished), and it may print",
}
TOL = {"rtol": 1e-6, "atol": 1e-6}


def quadratic_loss(W, X):
    return 0.5 * np.sum(X.dot(W) ** 2)


def original(f, x, verbose=True, h=0.00001):
    f0 = f(x)
    g = np.zeros_like(x)
    it = np.nditer(x, flags=['multi_index'], op_flags=['readwrite'])
    while not it.finished:

        ix = it.multi_index
        old = x[ix]
        x[ix] = old + h
        fp = f(x)
        x[ix] = old - h
        fm = f(x)
        x[ix] = old

        g[ix] = (fp - fm) / (2 * h)
        if verbose:
            print(ix, g[ix])
        it.iternext()

    return g


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 3))
    W = rng.standard_normal((3, 4))
    return (lambda w: quadratic_loss(w, X), W, seed % 2 == 0)
